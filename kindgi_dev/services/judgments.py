"""Judgments (0.1): one verdict each, read and written as the contract shapes them.

Creating one adds it to its corrector's correction of the run (made when there is
none), so each judgment is also an item of a 0.4 correction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain import corrections as rules
from ..domain.errors import BadInput, Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import corrections as store
from . import corrections, judge_classes
from .context import Context


def to_wire(row: Mapping[str, Any]) -> dict[str, Any]:
    """A verdict as the contract's `Judgment`."""
    item: dict[str, Any] = {"key": row["item_key"]}
    if row["pointer"] is not None:
        item["pointer"] = row["pointer"]
    if row["rank"] is not None:
        item["rank"] = row["rank"]
    wire: dict[str, Any] = {
        "id": row["id"],
        "tenantId": row["tenant_id"],
        "projectId": row["project_id"],
        "runId": row["run_id"],
        "subject": {
            "kind": row["subject_kind"],
            "id": row["subject_id"],
            "version": row["subject_version"],
        },
        "item": item,
        "verdict": row["verdict"],
    }
    if row["reason"] is not None:
        wire["reason"] = row["reason"]
    if row["judge_class_id"]:
        wire["judgeClassId"] = row["judge_class_id"]
    if row["restricted"]:
        wire["restricted"] = True
    wire["assertedBy"] = {"kind": row["asserted_by_kind"], "id": row["asserted_by_id"]}
    if row["participant_id"]:
        wire["participantId"] = row["participant_id"]
    wire["createdAt"] = row["created_at"]
    if row["unregistered_at"]:
        wire["unregisteredAt"] = row["unregistered_at"]
    if row["superseded_by"]:
        wire["supersededBy"] = row["superseded_by"]
    return wire


def create(ctx: Context, body: Mapping[str, Any]) -> dict[str, Any]:
    """Record one judgment; the caller's earlier one on the same item is superseded."""
    given = body["item"]
    pointer = given.get("pointer")
    if pointer is not None:
        pointer = rules.check_pointer(pointer, "item/pointer")
    item = rules.CorrectedItem(
        given["key"],
        pointer,
        given.get("rank"),
        rules.stored_verdict(body["verdict"]),
        rules.check_reason(body.get("reason"), "reason"),
    )
    run = corrections.correctable_run(ctx, body["runId"])
    klass = judge_classes.usable(ctx, body.get("judgeClassId"), run)
    corrector = corrections.corrector_of(ctx, body.get("participantId"))
    now = now_iso()
    with ctx.db.transaction():
        correction_id = corrections.open_correction(ctx, run, corrector, klass, now)
        verdict = corrections.verdict_row(
            run, correction_id, corrector, item, klass, now, "item/pointer"
        )
        corrections.record(ctx, run, correction_id, [verdict], now)
    return to_wire(_row(ctx, verdict["id"]))


def _row(ctx: Context, judgment_id: str) -> dict[str, Any]:
    """A verdict of this tenant, live or not; 404 `judgment-not-found`."""
    row = store.get_verdict(ctx.db, judgment_id)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        raise NotFound("judgment", judgment_id)
    return row


def get(ctx: Context, judgment_id: str) -> dict[str, Any]:
    """`JudgmentWithCopies`: the judgment, the run's copy, and the judged item's value."""
    row = _row(ctx, judgment_id)
    wire = to_wire(row)
    copy = store.get_copy(ctx.db, row["run_id"]) or {}
    wire["run"] = {k: v for k, v in copy.items() if v is not None or k in ("input", "output")}
    if row["pointer"] is not None:
        wire["itemValue"] = row["item_value"]
    return wire


def unregister(ctx: Context, judgment_id: str) -> dict[str, Any]:
    """Remove a live judgment of the caller's; 409 once it is no longer live."""
    row = _row(ctx, judgment_id)
    if (row["asserted_by_kind"], row["asserted_by_id"]) != (ctx.caller.kind, ctx.caller.id):
        raise Forbidden(f"Judgment {judgment_id} is someone else's.")
    now = now_iso()
    with ctx.db.transaction():
        if not store.unregister_verdict(ctx.db, judgment_id, now):
            raise Conflict(
                f"Judgment {judgment_id} was already unregistered or superseded.",
                code="judgment-already-unregistered",
                judgmentId=judgment_id,
            )
        store.update_correction(ctx.db, row["correction_id"], {"updated_at": now})
    return {"judgmentId": judgment_id, "unregistered": True}


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
    filters: dict[str, Any],
    scope_kind: str | None,
    scope_id: str | None,
) -> Page[dict[str, Any]]:
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
        position=lambda r: (r["created_at"], r["id"]),
    )
    return page.map(to_wire)
