"""Corrections (0.4): create or replace one, add an item, list, read, change, and erasures.

This module also holds what recording any verdict needs (the run's checks, the corrector,
the run's copy), which `judgments` shares: a 0.1 judgment is a verdict of a correction.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..domain import corrections as rules
from ..domain.errors import Conflict, Forbidden, Gone, NotFound, ValidationFailed
from ..domain.paging import Page, fetch_page
from ..domain.status import TERMINAL
from ..domain.time import now_iso
from ..store import corrections as store
from . import catalog, judge_classes, runs
from .context import Context


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
    decisions: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    judge_class_id: str | None = None
    restricted: bool | None = None
    participant_id: str | None = None
    replaced_by: str | None = None
    erased: bool | None = None


@dataclass(frozen=True)
class Erasure:
    """What erasing one person's words cleared."""

    participant_id: str
    erased_at: str
    corrections: int
    judgments: int


_CONTEXT_FIELDS = ("history", "historyTruncated", "retrieved", "recalled", "sessionApproval")


def correctable_run(ctx: Context, run_id: str) -> dict[str, Any]:
    """A run that may be corrected: 404 unknown, 410 erased, 409 not finished.

    A replay may be corrected like any run (0.3): that's how a version's new items get
    corrections. Its corrections are no cases of the agent's test set.
    """
    run = runs.get_record(ctx, run_id)
    if run.get("content_erased_at"):
        raise Gone(
            f"Run {run_id}'s content was erased; there is nothing to correct.",
            code="run-erased",
            runId=run_id,
        )
    if run["status"] not in TERMINAL or run.get("output") is None:
        raise Conflict(
            f"Run {run_id} is {run['status']} and has no output to correct yet.",
            code="run-not-finished",
            runId=run_id,
        )
    return run


def subject_of(run: Mapping[str, Any]) -> dict[str, str]:
    """What the run ran: `{kind, id, version}`."""
    if run.get("agent_id"):
        return {"kind": "agent", "id": run["agent_id"], "version": run["agent_version"]}
    return {"kind": "flow", "id": run["flow_id"], "version": run["flow_version"]}


def corrector_of(ctx: Context, participant_id: str | None) -> rules.Corrector:
    """The caller, and the app's end user it corrects for when there is one."""
    return rules.Corrector(ctx.caller.kind, ctx.caller.id, participant_id or "")


def agent_tools(ctx: Context, run: Mapping[str, Any]) -> set[str]:
    """The tool ids of the agent at the run's version (none when it is not registered)."""
    try:
        agent = catalog.get_agent(ctx, run["agent_id"], run["agent_version"])
    except NotFound:
        return set()
    return {ref["id"] for ref in agent.get("tools") or []}


def keep_copy(ctx: Context, run: Mapping[str, Any], now: str) -> None:
    """Store the run's copy at its first verdict: input, context with `toolEnv`, output."""
    if store.has_copy(ctx.db, run["id"]):
        return
    recorded = run.get("context") or {}
    context = {k: recorded[k] for k in _CONTEXT_FIELDS if k in recorded}
    if run.get("tool_env"):
        context["toolEnv"] = run["tool_env"]
    copy = {
        "runId": run["id"],
        "subject": subject_of(run),
        "input": run.get("input"),
        "context": context or None,
        "output": run.get("output"),
        "segments": run.get("segments"),
        "capturedAt": now,
    }
    store.insert_copy(ctx.db, copy)


def verdict_row(
    run: Mapping[str, Any],
    correction_id: str,
    corrector: rules.Corrector,
    item: rules.CorrectedItem,
    klass: rules.AssertedClass,
    now: str,
    where: str = "pointer",
) -> dict[str, Any]:
    """A verdict's row: the item and its value (400 `item-not-found` at `where` when the
    pointer names nothing), who gave it, its class and whether that was restricted."""
    value = None if item.pointer is None else rules.item_value(run["output"], item.pointer, where)
    return {
        "id": str(uuid.uuid4()),
        "correction_id": correction_id,
        "tenant_id": run["tenant_id"],
        "project_id": run["project_id"],
        "run_id": run["id"],
        "item_key": item.key,
        "pointer": item.pointer,
        "rank": item.rank,
        "verdict": item.verdict,
        "reason": item.reason,
        "judge_class_id": klass.class_id,
        "restricted": 1 if klass.restricted else 0,
        "asserted_by_kind": corrector.kind,
        "asserted_by_id": corrector.id,
        "participant_id": corrector.participant_id or None,
        "item_value": value,
        "created_at": now,
    }


def _new_correction(
    run: Mapping[str, Any], corrector: rules.Corrector, klass: rules.AssertedClass, now: str
) -> dict[str, Any]:
    subject = subject_of(run)
    return {
        "id": str(uuid.uuid4()),
        "tenant_id": run["tenant_id"],
        "project_id": run["project_id"],
        "run_id": run["id"],
        "subject_kind": subject["kind"],
        "subject_id": subject["id"],
        "subject_version": subject["version"],
        "corrector_kind": corrector.kind,
        "corrector_id": corrector.id,
        "participant_id": corrector.participant_id,
        "judge_class_id": klass.class_id,
        "restricted": 1 if klass.restricted else 0,
        "status": "open",
        "created_at": now,
        "updated_at": now,
    }


def _replace(ctx: Context, old: Mapping[str, Any] | None, new_id: str, now: str) -> None:
    """Mark the corrector's live correction replaced (before the new one is stored)."""
    if old is not None:
        store.update_correction(
            ctx.db, old["id"], {"replaced_by": new_id, "replaced_at": now, "updated_at": now}
        )


def open_correction(
    ctx: Context,
    run: Mapping[str, Any],
    corrector: rules.Corrector,
    klass: rules.AssertedClass,
    now: str,
) -> str:
    """The id of the corrector's live correction of the run, made now when there is none
    (or only an erased one, which it replaces). Call inside a transaction."""
    live = store.live_correction(ctx.db, run["id"], corrector)
    if live is not None and not live["erased_at"]:
        return str(live["id"])
    correction = _new_correction(run, corrector, klass, now)
    _replace(ctx, live, correction["id"], now)
    store.insert_correction(ctx.db, correction)
    return str(correction["id"])


def record(
    ctx: Context,
    run: Mapping[str, Any],
    correction_id: str,
    verdicts: Sequence[dict[str, Any]],
    now: str,
) -> None:
    """Add verdicts to a correction, superseding the corrector's earlier ones on each item."""
    for verdict in verdicts:
        corrector = rules.Corrector(
            verdict["asserted_by_kind"], verdict["asserted_by_id"], verdict["participant_id"] or ""
        )
        store.supersede(ctx.db, run["id"], corrector, verdict["item_key"], verdict["id"], now)
    store.insert_verdicts(ctx.db, verdicts)
    keep_copy(ctx, run, now)
    store.update_correction(ctx.db, correction_id, {"updated_at": now})


def _checked_body(body: Mapping[str, Any]) -> tuple[list[rules.CorrectedItem], Any, Any]:
    items = rules.check_items(body.get("items"))
    decisions = None if body.get("decisions") is None else rules.check_decisions(body["decisions"])
    answer = None if body.get("answer") is None else rules.check_answer(body["answer"])
    if not items and decisions is None and answer is None:
        raise ValidationFailed("items", "a correction needs items, decisions or answer")
    return items, decisions, answer


def create(ctx: Context, body: Mapping[str, Any]) -> Correction:
    """Create the caller's correction of a run, replacing the one it had."""
    items, decisions, answer = _checked_body(body)
    run = correctable_run(ctx, body["runId"])
    klass = judge_classes.usable(ctx, body.get("judgeClassId"), run)
    if decisions is not None:
        rules.check_tools(decisions, agent_tools(ctx, run), "decisions")
    corrector = corrector_of(ctx, body.get("participantId"))
    now = now_iso()
    correction = _new_correction(run, corrector, klass, now)
    correction.update(decisions=decisions, answer=answer)
    verdicts = [
        verdict_row(run, correction["id"], corrector, item, klass, now, f"items/{i}/pointer")
        for i, item in enumerate(items)
    ]
    with ctx.db.transaction():
        old = store.live_correction(ctx.db, run["id"], corrector)
        _replace(ctx, old, correction["id"], now)
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


def add_item(ctx: Context, correction_id: str, body: Mapping[str, Any]) -> Correction:
    """Add or change one item of the caller's correction; a changed item supersedes."""
    item = rules.check_item(body, "")
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


def update(ctx: Context, correction_id: str, changes: Mapping[str, Any]) -> Correction:
    """Change a correction's status, decisions or answer (None removes a part)."""
    if not changes:
        raise ValidationFailed("", "give at least one of status, decisions, answer")
    columns: dict[str, Any] = {}
    if "status" in changes:
        columns["status"] = rules.check_status(changes["status"])
    for name, check in (("decisions", rules.check_decisions), ("answer", rules.check_answer)):
        if name in changes:
            columns[name] = None if changes[name] is None else check(changes[name])
    row = _own_row(ctx, correction_id)
    if "decisions" in columns or "answer" in columns:
        _not_erased(row)
    if columns.get("decisions") is not None:
        run = runs.get_record(ctx, row["run_id"])
        rules.check_tools(columns["decisions"], agent_tools(ctx, run), "decisions")
    store.update_correction(ctx.db, correction_id, {**columns, "updated_at": now_iso()})
    return get(ctx, correction_id)


def erase(ctx: Context, participant_id: str) -> Erasure:
    """Clear one person's words in every correction and verdict, keeping the verdicts."""
    now = now_iso()
    corrections, verdicts = store.erase_participant(ctx.db, ctx.tenant_id, participant_id, now)
    return Erasure(participant_id, now, corrections, verdicts)


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
        decisions=row["decisions"],
        answer=row["answer"],
        judge_class_id=row["judge_class_id"] or None,
        restricted=True if row["restricted"] else None,
        participant_id=row["participant_id"] or None,
        replaced_by=row["replaced_by"] or None,
        erased=True if row["erased_at"] else None,
    )
