"""Corrections (0.4): create or replace one, add an item, list, read, change (erasures are
`services.erasures`).

Recording a verdict (the run's checks, the corrector, the run's copy) is `verdicts`, which
`judgments` shares: a 0.1 judgment is a verdict of a correction.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..domain import corrections as rules
from ..domain.errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.expectations import Answer, Decisions, GivenItem
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import corrections as store
from ..store import expectations as codec
from . import judge_classes, runs
from .context import Context
from .verdicts import (
    agent_tools,
    correctable_run,
    corrector_of,
    keep_copy,
    new_correction,
    new_ids,
    record,
    replace,
    verdict_row,
)


@dataclass(frozen=True)
class Subject:
    """What a run ran: an agent or a flow, at a version."""

    kind: str
    id: str
    version: str


@dataclass(frozen=True)
class Principal:
    """Who made a correction or asserted a verdict."""

    kind: str
    id: str


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
    correction = new_correction(run, corrector, klass, now)
    correction.update(decisions=codec.decisions_json(decided), answer=codec.answer_json(said))
    ids = new_ids(len(checked))
    verdicts = [
        verdict_row(
            run, correction["id"], corrector, item, klass, now, f"items/{i}/pointer", ids[i]
        )
        for i, item in enumerate(checked)
    ]
    with ctx.db.transaction():
        old = store.live_correction(ctx.db, run["id"], corrector)
        replace(ctx, old, correction["id"], now)
        store.insert_correction(ctx.db, correction)
        if old is None:
            store.insert_verdicts(ctx.db, verdicts)
            keep_copy(ctx, run, now)
        else:
            record(ctx, run, correction["id"], verdicts, now)
            if not old["erased_at"]:
                store.end_live_verdicts(ctx.db, old["id"], now)
    if old is not None:
        return get(ctx, correction["id"])
    stored = {**correction, "replaced_by": None, "replaced_at": None, "erased_at": None}
    return correction_of(stored, [{**v, "unregistered_at": None} for v in verdicts])


def _own_row(ctx: Context, correction_id: str) -> dict[str, Any]:
    """A live correction of the caller's: 404, 409 `correction-replaced`, 403 another's."""
    row = _row(ctx, correction_id)
    if row["replaced_by"]:
        raise Conflict(
            f"Correction {correction_id} was replaced by {row['replaced_by']}.",
            code="correction-replaced",
            correctionId=correction_id,
        )
    if (row["corrector_kind"], row["corrector_id"]) != (ctx.caller.kind, ctx.caller.id):
        raise Forbidden(f"Correction {correction_id} is someone else's.")
    return row


def _not_erased(row: Mapping[str, Any]) -> None:
    if row["erased_at"]:
        raise Conflict(
            f"Correction {row['id']} was erased; make a new one with POST /v1/corrections.",
            code="correction-erased",
            correctionId=row["id"],
        )


def add_item(ctx: Context, correction_id: str, given: GivenItem) -> Correction:
    """Add or change one item of the caller's correction; a changed item supersedes."""
    item = rules.check_item(given, "")
    row = _own_row(ctx, correction_id)
    _not_erased(row)
    run = correctable_run(ctx, row["run_id"])
    klass = judge_classes.usable(ctx, row["judge_class_id"], run)
    corrector = rules.Corrector(row["corrector_kind"], row["corrector_id"], row["participant_id"])
    now = now_iso()
    verdict = verdict_row(run, correction_id, corrector, item, klass, now)
    with ctx.db.transaction():
        record(ctx, run, correction_id, [verdict], now)
    return get(ctx, correction_id)


class Keep(enum.Enum):
    """A part `update` leaves as it is."""

    KEEP = "keep"


KEEP = Keep.KEEP


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
    columns: dict[str, Any] = {}
    if status is not KEEP:
        columns["status"] = rules.check_status(status)
    decided = None if decisions is KEEP or decisions is None else rules.check_decisions(decisions)
    if decisions is not KEEP:
        columns["decisions"] = codec.decisions_json(decided)
    if answer is not KEEP:
        said = None if answer is None else rules.check_answer(answer)
        columns["answer"] = codec.answer_json(said)
    row = _own_row(ctx, correction_id)
    if "decisions" in columns or "answer" in columns:
        _not_erased(row)
    if decided is not None:
        run = runs.get_record(ctx, row["run_id"])
        rules.check_tools(decided, agent_tools(ctx, run), "decisions")
    store.update_correction(ctx.db, correction_id, {**columns, "updated_at": now_iso()})
    return get(ctx, correction_id)


def _row(ctx: Context, correction_id: str) -> dict[str, Any]:
    row = store.get_correction(ctx.db, correction_id)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        raise NotFound("correction", correction_id)
    return row


def get(ctx: Context, correction_id: str) -> Correction:
    """One correction, live or replaced, with its items."""
    row = _row(ctx, correction_id)
    return correction_of(row, store.verdicts_of(ctx.db, [correction_id])[correction_id])


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: dict[str, Any],
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
        position=lambda r: (r["created_at"], r["id"]),
    )
    verdicts = store.verdicts_of(ctx.db, [r["id"] for r in page.items])
    shown = [correction_of(r, verdicts[r["id"]]) for r in page.items]
    return Page(shown, page.has_more, page.next_cursor)


def correction_of(row: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]]) -> Correction:
    """A stored correction as its record, its items the verdicts it shows."""
    items = [
        CorrectionItem(
            key=verdict["item_key"],
            verdict=rules.right_wrong(verdict["verdict"]),
            judgment_id=verdict["id"],
            pointer=verdict["pointer"],
            rank=verdict["rank"],
            reason=verdict["reason"],
        )
        for verdict in rules.shown_items(verdicts, row["replaced_at"])
    ]
    return Correction(
        id=row["id"],
        run_id=row["run_id"],
        project_id=row["project_id"],
        subject=Subject(row["subject_kind"], row["subject_id"], row["subject_version"]),
        items=items,
        corrected_by=Principal(row["corrector_kind"], row["corrector_id"]),
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        decisions=codec.decisions_of(row["decisions"]),
        answer=codec.answer_of(row["answer"]),
        judge_class_id=row["judge_class_id"] or None,
        restricted=True if row["restricted"] else None,
        participant_id=row["participant_id"] or None,
        replaced_by=row["replaced_by"] or None,
        erased=True if row["erased_at"] else None,
    )
