"""Corrections (0.4): create or replace one, add an item, list, read, change (erasures are
`services.erasures`).

Recording a verdict (the run's checks, the corrector, the run's copy) is `verdicts`, which
`judgments` shares: a 0.1 judgment is a verdict of a correction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..domain import corrections as rules
from ..domain.corrections import KEEP as KEEP
from ..domain.corrections import Keep as Keep
from ..domain.corrections import Principal, StoredCorrection, StoredVerdict, Subject
from ..domain.errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.expectations import Answer, Decisions, GivenItem
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..ids import ordered_ids
from ..store import corrections as store
from ..store.query import SQLValue
from . import judge_classes, runs
from .context import Context
from .verdicts import (
    agent_tools,
    case_state_of,
    correctable_run,
    corrector_of,
    keep_copy,
    new_correction,
    new_verdict,
    record,
    replace,
)


@dataclass(frozen=True)
class CorrectionItem:
    """One item of a correction: its verdict (right or wrong), and the judgment recording it."""

    key: str
    verdict: str
    judgment_id: str
    pointer: str | None = None
    rank: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Correction:
    """One corrector's verdicts on one run, and what it should have done or said."""

    id: str
    run_id: str
    project_id: str
    subject: Subject
    items: list[CorrectionItem]
    corrected_by: Principal
    status: str
    created_at: str
    updated_at: str
    decisions: Decisions | None = None
    answer: Answer | None = None
    judge_class_id: str | None = None
    restricted: bool | None = None
    participant_id: str | None = None
    replaced_by: str | None = None
    erased: bool | None = None


def create(
    ctx: Context,
    run_id: str,
    *,
    items: Sequence[GivenItem] = (),
    decisions: Decisions | None = None,
    answer: Answer | None = None,
    judge_class_id: str | None = None,
    participant_id: str | None = None,
) -> Correction:
    """Create the caller's correction of a run, replacing the one it had: its items'
    verdicts, and what it should have done and said."""
    checked = rules.check_items(items)
    decided = None if decisions is None else rules.check_decisions(decisions)
    said = None if answer is None else rules.check_answer(answer)
    if not checked and decided is None and said is None:
        raise ValidationFailed("items", "a correction needs items, decisions or answer")
    run = correctable_run(ctx, run_id)
    klass = judge_classes.usable(ctx, judge_class_id, run)
    if decided is not None:
        rules.check_tools(decided, agent_tools(ctx, run), "decisions")
    corrector = corrector_of(ctx, participant_id)
    now = now_iso()
    ids = ordered_ids(len(checked) + 1)  # the correction's, then its verdicts'
    correction = new_correction(run, corrector, klass, now, ids[0], decided, said)
    verdicts = [
        new_verdict(
            run, correction.id, corrector, item, klass, now, f"items/{i}/pointer", ids[i + 1]
        )
        for i, item in enumerate(checked)
    ]
    with ctx.db.transaction():
        old = store.live_correction(ctx.db, run.id, corrector)
        if old is None:  # as a batch writes it: its case state and count set with the row
            store.insert_corrections(
                ctx.db, [correction], [case_state_of(correction, run, verdicts)]
            )
            store.insert_verdicts(ctx.db, verdicts)
            keep_copy(ctx, run, now)
        else:
            replace(ctx, old, correction.id, now)
            store.insert_correction(ctx.db, correction)
            record(ctx, run, correction.id, verdicts, now)
            if not old.erased_at:
                store.end_live_verdicts(ctx.db, old.id, now)
    if old is not None:
        return get(ctx, correction.id)
    return correction_of(correction, verdicts)


def _own(ctx: Context, correction_id: str) -> StoredCorrection:
    """A live correction of the caller's: 404, 409 `correction-replaced`, 403 another's."""
    found = _stored(ctx, correction_id)
    if found.replaced_by:
        raise Conflict(
            f"Correction {correction_id} was replaced by {found.replaced_by}.",
            code="correction-replaced",
            correctionId=correction_id,
        )
    if (found.corrector.kind, found.corrector.id) != (ctx.caller.kind, ctx.caller.id):
        raise Forbidden(f"Correction {correction_id} is someone else's.")
    return found


def _not_erased(correction: StoredCorrection) -> None:
    if correction.erased_at:
        raise Conflict(
            f"Correction {correction.id} was erased; make a new one with POST /v1/corrections.",
            code="correction-erased",
            correctionId=correction.id,
        )


def add_item(ctx: Context, correction_id: str, given: GivenItem) -> Correction:
    """Add or change one item of the caller's correction; a changed item supersedes."""
    item = rules.check_item(given, "")
    correction = _own(ctx, correction_id)
    _not_erased(correction)
    run = correctable_run(ctx, correction.run_id)
    klass = judge_classes.usable(ctx, correction.judge_class_id, run)
    now = now_iso()
    verdict = new_verdict(run, correction_id, correction.corrector, item, klass, now)
    with ctx.db.transaction():
        record(ctx, run, correction_id, [verdict], now)
    return get(ctx, correction_id)


def update(
    ctx: Context,
    correction_id: str,
    *,
    status: str | Keep | None = KEEP,
    decisions: Decisions | Keep | None = KEEP,
    answer: Answer | Keep | None = KEEP,
) -> Correction:
    """Change a correction's status, decisions or answer (None removes a part; KEEP, the
    default, leaves it)."""
    if status is KEEP and decisions is KEEP and answer is KEEP:
        raise ValidationFailed("", "give at least one of status, decisions, answer")
    checked = KEEP if isinstance(status, Keep) else rules.check_status(status)
    decided = decisions
    if not isinstance(decisions, Keep) and decisions is not None:
        decided = rules.check_decisions(decisions)
    said = answer
    if not isinstance(answer, Keep) and answer is not None:
        said = rules.check_answer(answer)
    correction = _own(ctx, correction_id)
    if decisions is not KEEP or answer is not KEEP:
        _not_erased(correction)
    if isinstance(decided, Decisions):
        run = runs.get_record(ctx, correction.run_id)
        rules.check_tools(decided, agent_tools(ctx, run), "decisions")
    change = store.CorrectionChange(now_iso(), checked, decided, said)
    store.change_correction(ctx.db, correction_id, change)
    return get(ctx, correction_id)


def _stored(ctx: Context, correction_id: str) -> StoredCorrection:
    found = store.get_correction(ctx.db, correction_id)
    if found is None or found.tenant_id != ctx.tenant_id:
        raise NotFound("correction", correction_id)
    return found


def get(ctx: Context, correction_id: str) -> Correction:
    """One correction, live or replaced, with its items."""
    found = _stored(ctx, correction_id)
    return correction_of(found, store.verdicts_of(ctx.db, [correction_id])[correction_id])


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: Mapping[str, SQLValue],
    statuses: Sequence[str],
    include_replaced: bool,
) -> Page[Correction]:
    """A page of corrections, newest first (replaced ones only when asked for)."""
    if filters.get("corrected_by") == "me":
        filters = {**filters, "corrected_by": ctx.caller.id}
    for status in statuses:
        rules.check_status(status)
    page = fetch_page(
        lambda size, after: store.list_corrections(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            filters=filters,
            statuses=statuses,
            include_replaced=include_replaced,
        ),
        limit=limit,
        cursor=cursor,
        position=lambda c: (c.created_at, c.id),
    )
    verdicts = store.verdicts_of(ctx.db, [c.id for c in page.items])
    shown = [correction_of(c, verdicts[c.id]) for c in page.items]
    return Page(shown, page.has_more, page.next_cursor)


def correction_of(stored: StoredCorrection, verdicts: Sequence[StoredVerdict]) -> Correction:
    """A stored correction as its record, its items the verdicts it shows."""
    items = [
        CorrectionItem(
            key=verdict.item.key,
            verdict=rules.right_wrong(verdict.item.verdict),
            judgment_id=verdict.id,
            pointer=verdict.item.pointer,
            rank=verdict.item.rank,
            reason=verdict.item.reason,
        )
        for verdict in rules.shown_items(verdicts, stored.replaced_at)
    ]
    return Correction(
        id=stored.id,
        run_id=stored.run_id,
        project_id=stored.project_id,
        subject=stored.subject,
        items=items,
        corrected_by=stored.corrector.principal,
        status=stored.status,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
        decisions=stored.decisions,
        answer=stored.answer,
        judge_class_id=stored.judge_class_id or None,
        restricted=True if stored.restricted else None,
        participant_id=stored.corrector.participant_id or None,
        replaced_by=stored.replaced_by or None,
        erased=True if stored.erased_at else None,
    )
