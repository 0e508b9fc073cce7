"""Promotions: check a version against its scope's gate, make it live (at once, or once a
reviewer approves), roll a scope back, unpin it, and read the history.

Every change is one `Promotion` row, kept for good; a refused promotion is recorded too,
and pins nothing.
"""

from __future__ import annotations

import uuid
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ..domain import gates
from ..domain.errors import BadInput, NotFound, Unprocessable
from ..domain.gate_specs import GateCheck, GatePolicy
from ..domain.gates import Comparison, GateResult, PromotionRequest
from ..domain.live import LiveScope
from ..domain.paging import Page, clamp_limit, decode_cursor, make_page
from ..domain.releases import (
    PENDING,
    PIN_IN_PLACE,
    PROMOTE,
    PROMOTED,
    REFUSED,
    REJECTED,
    SUPERSEDED,
    LivePin,
    PolicyRef,
    Promotion,
    Requester,
)
from ..domain.results import ComparisonResult
from ..domain.time import now_iso
from ..store import releases as store
from ..store.eval_runs import EvalRunRow
from ..store.release_json import checks_json
from . import approvals, catalog, eval_runs, gate_policies, live
from .context import Context

SUBJECT = "agent-promotion"
"""The subject kind of a promotion's approval."""


class GateFailed(Unprocessable):
    """The gate refused the promotion."""

    code = "gate-failed"


@dataclass(frozen=True)
class Gate:
    """What the gate says of a promotion: the policy that applies (None: none does), every
    check, and the version serving the scope now."""

    policy: GatePolicy | None
    result: GateResult
    serving: live.Serving
    pin_in_place: bool = False

    @property
    def policy_ref(self) -> PolicyRef | None:
        """The policy version, as a promotion records it."""
        return None if self.policy is None else PolicyRef(self.policy.id, self.policy.version)


def active_version(ctx: Context, agent_id: str, version: str) -> None:
    """404 `agent-version-not-found` unless the version is registered and active."""
    catalog.get_agent(ctx, agent_id)
    manifest = None
    with suppress(NotFound):
        manifest = catalog.get_agent(ctx, agent_id, version)
    if manifest is None or manifest.get("unregisteredAt"):
        error = NotFound("agent-version", version, id_field="version")
        error.message = f"{agent_id} has no active version {version}."
        error.details["agent_id"] = agent_id
        error.args = (error.message,)
        raise error


def gate(ctx: Context, agent_id: str, request: PromotionRequest, eval_run_id: str | None) -> Gate:
    """The gate of a promotion, reading only. A version that serves the scope already,
    where the scope has no pin of its own, is a pin in place: pinning it changes nothing a
    run gets, so the policy's checks and approval don't apply."""
    active_version(ctx, agent_id, request.version)
    live.check_scope(ctx, request.scope)
    serving = live.serving(ctx, agent_id, request.scope)
    policy = gate_policies.resolve(ctx, agent_id, request.scope)
    if policy is None:
        return Gate(None, GateResult([]), serving)
    if serving.version == request.version and live.own_pin(ctx, agent_id, request.scope) is None:
        where = "as the latest version" if serving.pin is None else "from a pin above it"
        check = GateCheck(
            PIN_IN_PLACE,
            True,
            f"{agent_id} {serving.version} serves this scope already ({where}), so pinning "
            "it here changes nothing runs get: the policy's checks and approval don't apply.",
        )
        return Gate(policy, GateResult([check]), serving, pin_in_place=True)
    comparison = None if eval_run_id is None else _comparison(ctx, request, eval_run_id)
    now = datetime.now(UTC)
    result = gates.evaluate(
        policy.spec, request, comparison, serving_version=serving.version, now=now
    )
    return Gate(policy, result, serving)


def _comparison(ctx: Context, request: PromotionRequest, eval_run_id: str) -> Comparison:
    """The eval run a promotion names, as the gate reads it; 404 for an unknown run, 400 for
    one that summed up no comparison (a dry run, or one still going)."""
    record = eval_runs.get_record(ctx, eval_run_id)
    result = record.result
    if not isinstance(result, ComparisonResult):
        raise BadInput(
            f"Eval run {eval_run_id} isn't a finished comparison: it has no summary to gate on.",
            evalRunId=eval_run_id,
        )
    changed = _changed_since(ctx, request.agent_id, request.version, record)
    return Comparison(result.summary, record.status, content_changed=changed)


def _changed_since(ctx: Context, agent_id: str, version: str, record: EvalRunRow) -> bool:
    """Whether the version was saved with other content after the eval run's replays began:
    a rescore scores the replays of the run it rescores, and a resumed run keeps the cases
    of the run it resumes, so the earliest start along that chain is when they began."""
    saved = catalog.content_updated_at(ctx, "agent", agent_id, version)
    return saved is not None and saved > _replays_began(ctx, record)


def _replays_began(ctx: Context, record: EvalRunRow) -> str:
    """The earliest start of the run and of the runs it rescored or resumed, in turn."""
    began, seen = record.started_at, {record.run_id}
    earlier = record.settings.rescore_of or record.settings.resume_of
    while earlier is not None and earlier not in seen:
        seen.add(earlier)
        source = eval_runs.get_record(ctx, earlier)
        began = min(began, source.started_at)
        earlier = source.settings.rescore_of or source.settings.resume_of
    return began


@dataclass(frozen=True)
class Asked:
    """A promotion asked for: the version, the scope, why, and the comparison it names."""

    version: str
    scope: LiveScope
    reason: str | None = None
    eval_run_id: str | None = None

    def request(self, agent_id: str) -> PromotionRequest:
        """The promotion the gate checks."""
        return PromotionRequest(agent_id, self.version, self.scope)


def check(ctx: Context, agent_id: str, asked: Asked) -> Gate:
    """What promoting would do, with nothing recorded."""
    return gate(ctx, agent_id, asked.request(agent_id), asked.eval_run_id)


def promote(ctx: Context, agent_id: str, asked: Asked) -> Promotion:
    """Promote through the gate: pinned at once (`promoted`), or waiting for a reviewer
    (`pending-approval`, with its approval opened); a refusal is recorded, pins nothing, and
    raises 422 `gate-failed` with every check."""
    with ctx.db.transaction():
        found = gate(ctx, agent_id, asked.request(agent_id), asked.eval_run_id)
        own = live.own_pin(ctx, agent_id, asked.scope)
        row = Promotion(
            id=str(uuid.uuid4()),
            agent_id=agent_id,
            scope=asked.scope,
            action=PROMOTE,
            from_version=None if own is None else own.version,
            to_version=asked.version,
            requested_by=Requester(ctx.caller.kind, ctx.caller.id),
            created_at=now_iso(),
            reason=_reason(asked.reason, found.pin_in_place),
            eval_run_id=asked.eval_run_id,
            status=PROMOTED,
            policy=found.policy_ref,
            checks=found.result.checks,
        )
        if not found.result.passed:
            row = replace(row, status=REFUSED, resolved_at=row.created_at)
        elif found.result.approval is not None and not found.pin_in_place:
            row = _waiting(ctx, row, found)
        store.insert(ctx.db, ctx.tenant_id, row)
        if row.status == PROMOTED:
            _pin(ctx, row)
    if row.status == REFUSED:
        failed = "; ".join(c.message for c in found.result.failures())
        raise GateFailed(
            f"The gate refused {agent_id} {asked.version}: {failed}",
            promotionId=row.id,
            policy=None if row.policy is None else vars(row.policy),
            checks=checks_json(found.result.checks),
        )
    return row


def _reason(reason: str | None, pin_in_place: bool) -> str | None:
    """A pin in place says so first in its reason."""
    if not pin_in_place:
        return reason
    return "pin-in-place" if reason is None else f"pin-in-place: {reason}"


def _waiting(ctx: Context, row: Promotion, found: Gate) -> Promotion:
    """The promotion waiting for a reviewer, with the approval it waits on opened."""
    wanted = found.result.approval
    assert wanted is not None
    opened = approvals.open_approval(
        ctx,
        SUBJECT,
        {"agentId": row.agent_id, "version": row.to_version, "promotionId": row.id},
        required_role=wanted.role,
        separate_approver=wanted.separate_approver,
        project_id=row.scope.project_id,
        title=f"Make {row.agent_id} {row.to_version} live for {row.scope.describe()}",
        description=row.reason,
        context={"evalRunId": row.eval_run_id} if row.eval_run_id else None,
    )
    return replace(row, status=PENDING, approval_id=opened.id)


def _pin(ctx: Context, row: Promotion) -> None:
    """Set the pin a promotion or rollback made (its `to_version` for its scope)."""
    assert row.to_version is not None
    pin = LivePin(row.agent_id, row.scope, row.to_version, row.id, now_iso())
    store.set_pin(ctx.db, ctx.tenant_id, pin)


def on_decided(ctx: Context, decided: approvals.Decided) -> None:
    """A reviewer decided a promotion's approval: approved, it goes live unless the scope's
    pin moved meanwhile (`superseded`) or the version is no longer what was gated
    (unregistered, or saved with other content since its eval run: `refused`); rejected or
    withdrawn, it is `rejected`; escalated, it waits on the next approval."""
    promotion_id = str(decided.approval.subject_ref.get("promotionId"))
    row = store.get(ctx.db, ctx.tenant_id, promotion_id)
    if row is None or row.status != PENDING:
        return
    if decided.next_approval is not None:
        store.set_approval(ctx.db, promotion_id, decided.next_approval.id)
        return
    now = now_iso()
    if decided.decision.decision != "approve":
        store.resolve(ctx.db, promotion_id, REJECTED, now)
        return
    if _pin_moved(ctx, row):
        store.resolve(ctx.db, promotion_id, SUPERSEDED, now)
        return
    if not _still_as_judged(ctx, row):
        store.resolve(ctx.db, promotion_id, REFUSED, now)
        return
    store.resolve(ctx.db, promotion_id, PROMOTED, now)
    _pin(ctx, row)


def _pin_moved(ctx: Context, row: Promotion) -> bool:
    """Whether the scope's own pin changed after the promotion was asked for: another
    version, a pin set again since (moved away and back), or one set and removed since."""
    own = live.own_pin(ctx, row.agent_id, row.scope)
    if (None if own is None else own.version) != row.from_version:
        return True
    if own is not None:
        return own.set_at > row.created_at
    return store.unpinned_since(ctx.db, ctx.tenant_id, row.agent_id, row.scope.key, row.created_at)


def _still_as_judged(ctx: Context, row: Promotion) -> bool:
    """Whether the version waiting for its reviewer is still what was gated: registered and
    active, and (when an eval run was named) saved with no other content since it ran."""
    assert row.to_version is not None
    try:
        active_version(ctx, row.agent_id, row.to_version)
    except NotFound:
        return False
    if row.eval_run_id is None:
        return True
    record = eval_runs.get_record(ctx, row.eval_run_id)
    return not _changed_since(ctx, row.agent_id, row.to_version, record)


def get(ctx: Context, agent_id: str, promotion_id: str) -> Promotion:
    """One promotion of the agent; 404 `promotion-not-found`."""
    found = store.get(ctx.db, ctx.tenant_id, promotion_id)
    if found is None or found.agent_id != agent_id:
        raise NotFound("promotion", promotion_id)
    return found


def list_page(
    ctx: Context,
    agent_id: str,
    *,
    scope: LiveScope | None,
    limit: int | None,
    cursor: str | None,
) -> Page[Promotion]:
    """The agent's history, newest first (of one scope, when given)."""
    size = clamp_limit(limit)
    rows = store.list_page(
        ctx.db,
        ctx.tenant_id,
        agent_id,
        limit=size,
        after=decode_cursor(cursor),
        scope_key=None if scope is None else scope.key,
    )
    return make_page(rows, size, lambda row: [row[0]]).map(lambda row: row[1])
