"""Judgments (0.1): one verdict each, read and written as the contract shapes them.

Creating one adds it to its corrector's correction of the run (made when there is
none), so each judgment is also an item of a 0.4 correction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..domain import corrections as rules
from ..domain.bounds import check_rank
from ..domain.corrections import Principal, StoredVerdict, Subject
from ..domain.errors import BadInput, Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.json import JSON, JSONObject
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import corrections as store
from ..store import judged_copies
from ..store.query import SQLValue
from . import judge_classes, verdicts
from .context import Context


@dataclass(frozen=True)
class JudgedItem:
    """The item a judgment is about: its key, and where it sits in the output."""

    key: str
    pointer: str | None = None
    rank: int | None = None


@dataclass(frozen=True)
class Judgment:
    """One verdict (0.1's judgment) on one item of a finished run's output."""

    id: str
    tenant_id: str
    project_id: str
    run_id: str
    subject: Subject
    item: JudgedItem
    verdict: str
    asserted_by: Principal
    created_at: str
    reason: str | None = None
    judge_class_id: str | None = None
    restricted: bool | None = None
    participant_id: str | None = None
    unregistered_at: str | None = None
    superseded_by: str | None = None


@dataclass(frozen=True)
class JudgmentWithCopies(Judgment):
    """A judgment with the run's copy taken at its first verdict and the item's value."""

    run: JSONObject | None = None
    item_value: JSON = None


@dataclass(frozen=True)
class UnregisteredJudgment:
    """What removing a judgment answers."""

    judgment_id: str
    unregistered: bool = True


def judgment_of(verdict: StoredVerdict) -> Judgment:
    """A stored verdict as a judgment."""
    item = verdict.item
    return Judgment(
        id=verdict.id,
        tenant_id=verdict.tenant_id,
        project_id=verdict.project_id,
        run_id=verdict.run_id,
        subject=verdict.subject,
        item=JudgedItem(item.key, item.pointer, item.rank),
        verdict=item.verdict,
        asserted_by=verdict.asserted_by.principal,
        created_at=verdict.created_at,
        reason=item.reason,
        judge_class_id=verdict.judge_class_id or None,
        restricted=True if verdict.restricted else None,
        participant_id=verdict.asserted_by.participant_id or None,
        unregistered_at=verdict.unregistered_at or None,
        superseded_by=verdict.superseded_by or None,
    )


def create(
    ctx: Context,
    run_id: str,
    *,
    key: str,
    pointer: str | None,
    rank: int | None,
    verdict: str,
    reason: str | None = None,
    judge_class_id: str | None = None,
    participant_id: str | None = None,
) -> Judgment:
    """Record one judgment (`yes`/`no`) on an item of a run; the caller's earlier one on the
    same item is superseded."""
    if pointer is not None:
        pointer = rules.check_pointer(pointer, "item/pointer")
    item = rules.CorrectedItem(
        key,
        pointer,
        check_rank(rank, "item/rank"),
        rules.stored_verdict(verdict),
        rules.check_reason(reason, "reason"),
    )
    run = verdicts.correctable_run(ctx, run_id)
    klass = judge_classes.usable(ctx, judge_class_id, run)
    corrector = verdicts.corrector_of(ctx, participant_id)
    now = now_iso()
    with ctx.db.transaction():
        correction_id = verdicts.open_correction(ctx, run, corrector, klass, now)
        given = verdicts.new_verdict(
            run, correction_id, corrector, item, klass, now, "item/pointer"
        )
        verdicts.record(ctx, run, correction_id, [given], now)
    return judgment_of(_stored(ctx, given.id))


def _stored(ctx: Context, judgment_id: str) -> StoredVerdict:
    """A verdict of this tenant, live or not; 404 `judgment-not-found`."""
    found = store.get_verdict(ctx.db, judgment_id)
    if found is None or found.tenant_id != ctx.tenant_id:
        raise NotFound("judgment", judgment_id)
    return found


def get(ctx: Context, judgment_id: str) -> JudgmentWithCopies:
    """The judgment, the run's copy, and the judged item's value."""
    verdict = _stored(ctx, judgment_id)
    copy = judged_copies.get_copy(ctx.db, verdict.run_id)
    fields = {} if copy is None else {**vars(copy), "subject": vars(copy.subject)}
    run = {k: v for k, v in fields.items() if v is not None or k in ("input", "output")}
    value = verdict.item_value if verdict.item.pointer is not None else None
    return JudgmentWithCopies(**vars(judgment_of(verdict)), run=run, item_value=value)


def unregister(ctx: Context, judgment_id: str) -> UnregisteredJudgment:
    """Remove a live judgment of the caller's; 409 once it is no longer live."""
    verdict = _stored(ctx, judgment_id)
    if verdict.asserted_by.principal != Principal(ctx.caller.kind, ctx.caller.id):
        raise Forbidden(f"Judgment {judgment_id} is someone else's.")
    now = now_iso()
    with ctx.db.transaction():
        if not store.unregister_verdict(ctx.db, judgment_id, now):
            raise Conflict(
                f"Judgment {judgment_id} was already unregistered or superseded.",
                code="judgment-already-unregistered",
                judgmentId=judgment_id,
            )
        store.touch_correction(ctx.db, verdict.correction_id, now)
    return UnregisteredJudgment(judgment_id)


def scope_filter(scope_kind: str | None, scope_id: str | None) -> dict[str, str | None]:
    """The list's `scopeKind`/`scopeId` as a project or org filter; 400 `scope-invalid`."""
    if scope_kind is None:
        if scope_id is not None:
            raise BadInput("scopeId needs scopeKind.", code="scope-invalid")
        return {}
    if scope_kind == "tenant":
        if scope_id is not None:
            raise BadInput("scopeKind=tenant takes no scopeId.", code="scope-invalid")
        return {}
    if not scope_id:
        raise BadInput(f"scopeKind={scope_kind} needs scopeId.", code="scope-invalid")
    return {"org_id" if scope_kind == "org" else "project_id": scope_id}


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: Mapping[str, SQLValue],
    scope_kind: str | None,
    scope_id: str | None,
) -> Page[Judgment]:
    """A page of live judgments, newest first."""
    if filters.get("agent_version") and not filters.get("agent_id"):
        raise ValidationFailed("agentVersion", "needs agentId")
    page = fetch_page(
        lambda size, after: store.list_verdicts(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            filters={**filters, **scope_filter(scope_kind, scope_id)},
        ),
        limit=limit,
        cursor=cursor,
        position=lambda v: (v.created_at, v.id),
    )
    return page.map(judgment_of)
