"""What a decision on an approval does to the thing that waits on it, by subject kind.

Deciding is the same for every subject (`approvals.decide`); each kind that can wait
names its follow-up here: a promotion goes live; a live run's held tool call records the
decision the run goes on with (`run_waits`).
"""

from __future__ import annotations

from collections.abc import Callable

from . import approvals, promotions, run_waits
from .context import Context

FOLLOW_UPS: dict[str, Callable[[Context, approvals.Decided], None]] = {
    promotions.SUBJECT: promotions.on_decided,
    run_waits.SUBJECT: run_waits.on_decided,
}


def complete(
    ctx: Context, approval_id: str, decision: str, rationale: str | None
) -> approvals.Decided:
    """Record the caller's decision and carry it out on its subject, in one transaction."""
    with ctx.db.transaction():
        decided = approvals.decide(ctx, approval_id, decision, rationale)
        follow_up = FOLLOW_UPS.get(decided.approval.subject_kind)
        if follow_up is not None:
            follow_up(ctx, decided)
    return decided
