"""Judge classes: create, list, read, change and retire them; whether a verdict may use one."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ..domain import corrections as rules
from ..domain.corrections import AssertedClass
from ..domain.errors import BadInput, Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import judge_classes as store
from . import projects
from .context import Context

CALLER_ROLE = "admin"
"""The dev token's user is the instance's admin, so it passes any `minReviewerRole`."""


def to_wire(row: Mapping[str, Any]) -> dict[str, Any]:
    """A class as the contract's `JudgeClass`; `principalIds` shown, since the caller is admin."""
    scope: dict[str, Any] = {"kind": row["scope_kind"]}
    if row["scope_kind"] != "tenant":
        scope["projectId"] = row["project_id"]
    if row["scope_kind"] == "agent":
        scope["agentId"] = row["agent_id"]
    weight = row["weight"]
    wire: dict[str, Any] = {
        "id": row["id"],
        "tenantId": row["tenant_id"],
        "scope": scope,
        "name": row["name"],
        "weight": int(weight) if float(weight).is_integer() else weight,
    }
    if row["description"] is not None:
        wire["description"] = row["description"]
    if row["assertable_by"]:
        view = dict(row["assertable_by"])
        if view.get("principalIds"):
            view["principalCount"] = len(view["principalIds"])
        wire["assertableBy"] = view
    wire.update(createdAt=row["created_at"], updatedAt=row["updated_at"])
    if row["unregistered_at"]:
        wire["unregisteredAt"] = row["unregistered_at"]
    return wire


def _row(ctx: Context, class_id: str) -> dict[str, Any]:
    """A class of this tenant, live or retired; 404 `judge-class-not-found`."""
    row = store.get(ctx.db, class_id)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        raise NotFound("judge-class", class_id)
    return row


def _live_row(ctx: Context, class_id: str) -> dict[str, Any]:
    """A live class; 409 `judge-class-already-unregistered` once retired."""
    row = _row(ctx, class_id)
    if row["unregistered_at"]:
        raise Conflict(
            f"Judge class {class_id} was unregistered at {row['unregistered_at']}.",
            code="judge-class-already-unregistered",
            judgeClassId=class_id,
        )
    return row


def get(ctx: Context, class_id: str) -> dict[str, Any]:
    """One class, retired ones too."""
    return to_wire(_row(ctx, class_id))


def create(ctx: Context, body: Mapping[str, Any]) -> dict[str, Any]:
    """A new class; 409 `judge-class-name-taken` when a live class of its scope has the name."""
    scope = body["scope"]
    if scope["kind"] != "tenant":
        projects.get(ctx, scope["projectId"])
    key = (scope["kind"], scope.get("projectId"), scope.get("agentId"))
    now = now_iso()
    row = {
        "id": str(uuid.uuid4()),
        "tenant_id": ctx.tenant_id,
        "scope_kind": key[0],
        "project_id": key[1],
        "agent_id": key[2],
        "name": body["name"],
        "weight": body["weight"],
        "description": body.get("description"),
        "assertable_by": body.get("assertableBy"),
        "created_at": now,
        "updated_at": now,
    }
    with ctx.db.transaction():
        if store.name_taken(ctx.db, ctx.tenant_id, key, body["name"]):
            raise Conflict(
                f'A live judge class of this scope is already named "{body["name"]}".',
                code="judge-class-name-taken",
                name=body["name"],
            )
        store.insert(ctx.db, row)
    return get(ctx, row["id"])


def update(ctx: Context, class_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Change weight, description or `assertableBy` (None lifts the restriction)."""
    if not changes:
        raise ValidationFailed("", "give at least one of weight, description, assertableBy")
    columns = {"weight": "weight", "description": "description", "assertableBy": "assertable_by"}
    with ctx.db.transaction():
        _live_row(ctx, class_id)
        update_columns = {columns[name]: value for name, value in changes.items()}
        store.update(ctx.db, class_id, {**update_columns, "updated_at": now_iso()})
    return get(ctx, class_id)


def unregister(ctx: Context, class_id: str) -> dict[str, Any]:
    """Retire a class: new verdicts may not use it; those recorded keep it."""
    with ctx.db.transaction():
        _live_row(ctx, class_id)
        now = now_iso()
        store.update(ctx.db, class_id, {"unregistered_at": now, "updated_at": now})
    return {"judgeClassId": class_id, "unregistered": True}


def check_scope_query(scope_kind: str | None, project_id: str | None, agent_id: str | None) -> None:
    """The list's scope: `project` needs projectId, `agent` both; 400 `scope-invalid`."""
    if scope_kind == "tenant" and (project_id or agent_id):
        raise BadInput("scopeKind=tenant takes no projectId or agentId.", code="scope-invalid")
    if scope_kind in ("project", "agent") and not project_id:
        raise BadInput(f"scopeKind={scope_kind} needs projectId.", code="scope-invalid")
    if scope_kind == "agent" and not agent_id:
        raise BadInput("scopeKind=agent needs agentId.", code="scope-invalid")
    if scope_kind == "project" and agent_id:
        raise BadInput("scopeKind=project takes no agentId.", code="scope-invalid")


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    scope_kind: str | None,
    project_id: str | None,
    agent_id: str | None,
) -> Page[dict[str, Any]]:
    """A page of live classes, newest first."""
    check_scope_query(scope_kind, project_id, agent_id)
    page = fetch_page(
        lambda size, after: store.list_page(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            scope_kind=scope_kind,
            project_id=project_id,
            agent_id=agent_id,
        ),
        limit=limit,
        cursor=cursor,
        position=lambda r: (r["created_at"], r["id"]),
    )
    return page.map(to_wire)


def usable(ctx: Context, class_id: str | None, run: Mapping[str, Any]) -> AssertedClass:
    """The class, and whether it is restricted now, for a verdict on `run`; 404 unknown or retired,
    400 `judge-class-not-applicable`, 403 `judge-class-not-allowed`."""
    if class_id is None:
        return AssertedClass(None, False)
    row = store.get(ctx.db, class_id)
    if row is None or row["tenant_id"] != ctx.tenant_id or row["unregistered_at"]:
        raise NotFound("judge-class", class_id)
    scope = to_wire(row)["scope"]
    if not rules.class_applies(scope, run["project_id"], run.get("agent_id")):
        raise ValidationFailed(
            "judgeClassId",
            f"judge class {class_id} is scoped to {scope}, not to this run's project and agent",
            code="judge-class-not-applicable",
        )
    caller = ctx.caller
    if not rules.may_assert(row["assertable_by"], caller.kind, caller.id, CALLER_ROLE):
        raise Forbidden(
            f"Judge class {class_id} is restricted, and its assertableBy does not name you.",
            code="judge-class-not-allowed",
            judgeClassId=class_id,
        )
    return AssertedClass(class_id, bool(row["assertable_by"]))
