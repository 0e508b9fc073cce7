"""Recording a verdict, which corrections and 0.1 judgments share: the run that may be
corrected, the corrector, the correction a verdict belongs to, and the run's copy."""

from __future__ import annotations

import threading
import uuid
import weakref
from collections.abc import Iterable, Sequence

from ..domain import corrections as rules
from ..domain.errors import Conflict, Gone, NotFound
from ..domain.expectations import Answer, Decisions
from ..domain.json import JSON
from ..domain.status import TERMINAL
from ..domain.test_sets import CorrectionFacts, exclusion
from ..store import corrections as store
from ..store import judged_copies
from ..store.db import Database
from ..store.runs import StoredRun, segments_json
from . import catalog, runs
from .context import Context

_CONTEXT_FIELDS = ("history", "historyTruncated", "retrieved", "recalled", "sessionApproval")
_COPIED: weakref.WeakKeyDictionary[Database, dict[str, None]] = weakref.WeakKeyDictionary()
"""Runs of each database whose copy is committed: a copy is never deleted (an erasure
clears its words, the row stays), so a run's next verdicts need not look for it again."""
COPIED_KEPT = 1024
"""How many of those runs are remembered, the latest: a few kB, and the runs being judged."""
_COPIED_LOCK = threading.Lock()


def correctable_run(ctx: Context, run_id: str) -> StoredRun:
    """A run that may be corrected: 404 unknown, 410 erased, 409 not finished.

    A replay may be corrected like any run (0.3): that's how a version's new items get
    corrections. Its corrections are no cases of the agent's test set.
    """
    return correctable(runs.get_record(ctx, run_id))


def correctable(run: StoredRun) -> StoredRun:
    """`correctable_run`'s checks of a run already read (a batch reads its runs at once)."""
    if run.content_erased_at:
        raise Gone(
            f"Run {run.id}'s content was erased; there is nothing to correct.",
            code="run-erased",
            runId=run.id,
        )
    if run.status not in TERMINAL or run.output is None:
        raise Conflict(
            f"Run {run.id} is {run.status} and has no output to correct yet.",
            code="run-not-finished",
            runId=run.id,
        )
    return run


def subject_of(run: StoredRun) -> rules.Subject:
    """What the run ran: an agent or a flow, at a version."""
    if run.agent_id:
        return rules.Subject("agent", run.agent_id, run.agent_version or "")
    return rules.Subject("flow", run.flow_id, run.flow_version)


def corrector_of(ctx: Context, participant_id: str | None) -> rules.Corrector:
    """The caller, and the app's end user it corrects for when there is one."""
    return rules.Corrector(ctx.caller.kind, ctx.caller.id, participant_id or "")


def agent_tools(ctx: Context, run: StoredRun) -> set[str]:
    """The tool ids of the agent at the run's version (none when it is not registered)."""
    if run.agent_id is None or run.agent_version is None:
        return set()
    try:
        agent = catalog.get_agent(ctx, run.agent_id, run.agent_version)
    except NotFound:
        return set()
    return {ref["id"] for ref in agent.get("tools") or []}


def keep_copy(ctx: Context, run: StoredRun, now: str) -> None:
    """Store the run's copy at its first verdict: input, context with `toolEnv`, output."""
    keep_copies(ctx, [(run, now)])


def keep_copies(ctx: Context, judged: Sequence[tuple[StoredRun, str]]) -> None:
    """`keep_copy` of each (run, first verdict's time), one read and one write for all."""
    copied = _COPIED.setdefault(ctx.db, {})
    fresh = {run.id: (run, now) for run, now in judged if run.id not in copied}
    if not fresh:
        return
    kept = judged_copies.copied_among(ctx.db, list(fresh))
    copies = [_copy_of(run, now) for run, now in fresh.values() if run.id not in kept]
    if copies:
        judged_copies.insert_copies(ctx.db, copies)
    # Both what this transaction found (another member's copy, uncommitted, may be among
    # it) and what it wrote are remembered once it commits; never if it rolls back.
    known = [*kept, *(copy.run_id for copy in copies)]
    ctx.db.after_commit(lambda: _remember(copied, known))


def _copy_of(run: StoredRun, now: str) -> judged_copies.JudgedCopy:
    """A run's copy as its first verdict keeps it."""
    recorded = run.context or {}
    context = {k: recorded[k] for k in _CONTEXT_FIELDS if k in recorded}
    if run.tool_env:
        context["toolEnv"] = run.tool_env
    return judged_copies.JudgedCopy(
        run_id=run.id,
        subject=subject_of(run),
        captured_at=now,
        input=run.input,
        context=context or None,
        output=run.output,
        segments=segments_json(run.segments),
    )


def _remember(copied: dict[str, None], run_ids: Iterable[str]) -> None:
    """Note that runs' copies are committed, forgetting the earliest beyond `COPIED_KEPT`."""
    with _COPIED_LOCK:
        for run_id in run_ids:
            copied[run_id] = None
        while len(copied) > COPIED_KEPT:
            del copied[next(iter(copied))]


def new_verdict(
    run: StoredRun,
    correction_id: str,
    corrector: rules.Corrector,
    item: rules.CorrectedItem,
    klass: rules.AssertedClass,
    now: str,
    where: str = "pointer",
    verdict_id: str | None = None,
) -> rules.StoredVerdict:
    """A new verdict: the item and its value (400 at `where` when the pointer names
    nothing or another item), who gave it, its class and whether that was restricted;
    its id `verdict_id` when given (see `new_ids`), a new one otherwise."""
    value = checked_value(run, item, where)
    return verdict_of(run, correction_id, corrector, item, klass, now, value, verdict_id)


def checked_value(run: StoredRun, item: rules.CorrectedItem, where: str) -> JSON:
    """The value an item's pointer names in the run's output: 400 at `where` when it names
    nothing or another item."""
    value = None if item.pointer is None else rules.item_value(run.output, item.pointer, where)
    rules.check_key_at(run.output, item, where)
    return value


def verdict_of(
    run: StoredRun,
    correction_id: str,
    corrector: rules.Corrector,
    item: rules.CorrectedItem,
    klass: rules.AssertedClass,
    now: str,
    value: JSON,
    verdict_id: str | None = None,
) -> rules.StoredVerdict:
    """`new_verdict`'s record, of an item whose `checked_value` is known (a batch checks each
    item of a run once)."""
    return rules.StoredVerdict(
        id=verdict_id or str(uuid.uuid4()),
        correction_id=correction_id,
        tenant_id=run.tenant_id,
        project_id=run.project_id,
        run_id=run.id,
        subject=subject_of(run),
        asserted_by=corrector,
        item=item,
        created_at=now,
        judge_class_id=klass.class_id,
        restricted=klass.restricted,
        item_value=value,
    )


def new_correction(
    run: StoredRun,
    corrector: rules.Corrector,
    klass: rules.AssertedClass,
    now: str,
    correction_id: str | None = None,
    decisions: Decisions | None = None,
    answer: Answer | None = None,
) -> rules.StoredCorrection:
    """A new open correction by the corrector under the class, made now, with what the run
    should have done and said; its id `correction_id` when given (see `ordered_ids`,
    `new_ids`), a new random one otherwise."""
    return rules.StoredCorrection(
        id=correction_id or str(uuid.uuid4()),
        tenant_id=run.tenant_id,
        project_id=run.project_id,
        run_id=run.id,
        subject=subject_of(run),
        corrector=corrector,
        status="open",
        created_at=now,
        updated_at=now,
        judge_class_id=klass.class_id,
        restricted=klass.restricted,
        decisions=decisions,
        answer=answer,
    )


def case_state_of(
    correction: rules.StoredCorrection, run: StoredRun, verdicts: Sequence[rules.StoredVerdict]
) -> int:
    """The `case_state` m0010's triggers give a new correction once its verdicts are in: 1
    when it is a case of its agent's set (`test_sets.exclusion`), else 0 (a new correction
    is never retired). Written with the row, its verdicts' inserts find nothing to refresh."""
    live = any(v.unregistered_at is None and v.superseded_by is None for v in verdicts)
    facts = CorrectionFacts(
        correction.id,
        correction.tenant_id,
        correction.project_id,
        correction.subject.kind,
        correction.subject.id,
        correction.status,
        correction.replaced_by,
        correction.erased_at,
        on_replay=run.replay_of is not None,
        has_expectation=live or correction.decisions is not None or correction.answer is not None,
    )
    return int(correction.subject.kind == "agent" and exclusion(facts) is None)


def replace(ctx: Context, old: rules.StoredCorrection | None, new_id: str, now: str) -> None:
    """Mark the corrector's live correction replaced (before the new one is stored)."""
    if old is not None:
        store.mark_replaced(ctx.db, old.id, new_id, now)


def open_correction(
    ctx: Context,
    run: StoredRun,
    corrector: rules.Corrector,
    klass: rules.AssertedClass,
    now: str,
) -> str:
    """The id of the corrector's live correction of the run, made now when there is none
    (or only an erased one, which it replaces). Call inside a transaction."""
    live = store.live_correction(ctx.db, run.id, corrector)
    if live is not None and not live.erased_at:
        return live.id
    correction = new_correction(run, corrector, klass, now)
    replace(ctx, live, correction.id, now)
    store.insert_correction(ctx.db, correction)
    return correction.id


def record(
    ctx: Context,
    run: StoredRun,
    correction_id: str,
    verdicts: Sequence[rules.StoredVerdict],
    now: str,
) -> None:
    """Add verdicts to a correction, superseding the corrector's earlier ones on each item."""
    for verdict in verdicts:
        store.supersede(ctx.db, run.id, verdict.asserted_by, verdict.item.key, verdict.id, now)
    store.insert_verdicts(ctx.db, verdicts)
    keep_copy(ctx, run, now)
    store.touch_correction(ctx.db, correction_id, now)
