"""Judge classes: create, list, read, change and retire them; whether a verdict may use one."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..domain import corrections as rules
from ..domain.bounds import check_weight
from ..domain.corrections import AssertableBy, AssertedClass, ClassScope
from ..domain.errors import BadInput, Conflict, Forbidden, NotFound, ValidationFailed
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import judge_classes as store
from ..store.judge_classes import JudgeClassChanges, StoredJudgeClass
from ..store.runs import StoredRun
from . import projects
from .context import Context

CALLER_ROLE = "admin"
"""The dev token's user is the instance's admin, so it passes any `minReviewerRole`."""


@dataclass(frozen=True)
class AssertableByView:
    """Who may use a restricted class; `principal_count` says how many principals it names."""

    min_reviewer_role: str | None = None
    principal_kinds: tuple[str, ...] | None = None
    principal_ids: tuple[str, ...] | None = None
    principal_count: int | None = None


@dataclass(frozen=True)
class JudgeClass:
    """A judge class: its scope, name and weight, and who may use it when restricted."""

    id: str
    tenant_id: str
    scope: ClassScope
    name: str
    weight: float
    created_at: str
    updated_at: str
    description: str | None = None
    assertable_by: AssertableByView | None = None
    unregistered_at: str | None = None


@dataclass(frozen=True)
class UnregisteredClass:
    """What retiring a class answers."""

    judge_class_id: str
    unregistered: bool = True


def scope_of(stored: StoredJudgeClass) -> ClassScope:
    """A stored class's scope."""
    kind = stored.scope_kind
    return ClassScope(
        kind,
        project_id=None if kind == "tenant" else stored.project_id,
        agent_id=stored.agent_id if kind == "agent" else None,
    )


def class_of(row: StoredJudgeClass) -> JudgeClass:
    """A stored class as its record; `principalIds` shown, since the caller is admin."""
    weight = row.weight
    stored = row.assertable_by
    assertable = None
    if stored is not None:
        ids = stored.principal_ids
        assertable = AssertableByView(
            min_reviewer_role=stored.min_reviewer_role,
            principal_kinds=stored.principal_kinds,
            principal_ids=ids,
            principal_count=len(ids) if ids else None,
        )
    return JudgeClass(
        id=row.id,
        tenant_id=row.tenant_id,
        scope=scope_of(row),
        name=row.name,
        weight=int(weight) if float(weight).is_integer() else weight,
        created_at=row.created_at,
        updated_at=row.updated_at,
        description=row.description,
        assertable_by=assertable,
        unregistered_at=row.unregistered_at or None,
    )


def _row(ctx: Context, class_id: str) -> StoredJudgeClass:
    """A class of this tenant, live or retired; 404 `judge-class-not-found`."""
    row = store.get(ctx.db, class_id)
    if row is None or row.tenant_id != ctx.tenant_id:
        raise NotFound("judge-class", class_id)
    return row


def _live_row(ctx: Context, class_id: str) -> StoredJudgeClass:
    """A live class; 409 `judge-class-already-unregistered` once retired."""
    row = _row(ctx, class_id)
    if row.unregistered_at:
        raise Conflict(
            f"Judge class {class_id} was unregistered at {row.unregistered_at}.",
            code="judge-class-already-unregistered",
            judgeClassId=class_id,
        )
    return row


def get(ctx: Context, class_id: str) -> JudgeClass:
    """One class, retired ones too."""
    return class_of(_row(ctx, class_id))


def create(
    ctx: Context,
    scope: tuple[str, str | None, str | None],
    *,
    name: str,
    weight: float,
    description: str | None = None,
    assertable_by: AssertableBy | None = None,
) -> JudgeClass:
    """A new class of a scope (kind, project id, agent id), restricted to `assertable_by`
    when given; 409 `judge-class-name-taken` when a live class of its scope has the name."""
    if scope[0] != "tenant":
        projects.get(ctx, str(scope[1]))
    key = scope
    now = now_iso()
    row = StoredJudgeClass(
        id=str(uuid.uuid4()),
        tenant_id=ctx.tenant_id,
        scope_kind=key[0],
        project_id=key[1],
        agent_id=key[2],
        name=name,
        weight=check_weight(weight),
        description=description,
        assertable_by=assertable_by,
        created_at=now,
        updated_at=now,
    )
    with ctx.db.transaction():
        if store.name_taken(ctx.db, ctx.tenant_id, key, name):
            raise Conflict(
                f'A live judge class of this scope is already named "{name}".',
                code="judge-class-name-taken",
                name=name,
            )
        store.insert(ctx.db, row)
    return get(ctx, row.id)


def update(ctx: Context, class_id: str, changes: Mapping[str, Any]) -> JudgeClass:
    """Change `weight`, `description` or `assertable_by` (None lifts the restriction)."""
    if not changes:
        raise ValidationFailed("", "give at least one of weight, description, assertableBy")
    fields: JudgeClassChanges = {"updated_at": now_iso()}
    if "weight" in changes:
        fields["weight"] = check_weight(changes["weight"])
    if "description" in changes:
        fields["description"] = changes["description"]
    if "assertable_by" in changes:
        fields["assertable_by"] = changes["assertable_by"]
    with ctx.db.transaction():
        _live_row(ctx, class_id)
        store.update(ctx.db, class_id, fields)
    return get(ctx, class_id)


def unregister(ctx: Context, class_id: str) -> UnregisteredClass:
    """Retire a class: new verdicts may not use it; those recorded keep it."""
    with ctx.db.transaction():
        _live_row(ctx, class_id)
        now = now_iso()
        store.update(ctx.db, class_id, {"unregistered_at": now, "updated_at": now})
    return UnregisteredClass(class_id)


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
) -> Page[JudgeClass]:
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
        position=lambda r: (r.created_at, r.id),
    )
    return page.map(class_of)


def usable(ctx: Context, class_id: str | None, run: StoredRun) -> AssertedClass:
    """The class, and whether it is restricted now, for a verdict on `run`; 404 unknown or retired,
    400 `judge-class-not-applicable`, 403 `judge-class-not-allowed`."""
    if class_id is None:
        return AssertedClass(None, False)
    row = store.get(ctx.db, class_id)
    if row is None or row.tenant_id != ctx.tenant_id or row.unregistered_at:
        raise NotFound("judge-class", class_id)
    found = scope_of(row)
    if not rules.class_applies(found, run.project_id, run.agent_id):
        parts = {"kind": found.kind, "projectId": found.project_id, "agentId": found.agent_id}
        scope = {name: value for name, value in parts.items() if value is not None}
        raise ValidationFailed(
            "judgeClassId",
            f"judge class {class_id} is scoped to {scope}, not to this run's project and agent",
            code="judge-class-not-applicable",
        )
    caller = ctx.caller
    if not rules.may_assert(row.assertable_by, caller.kind, caller.id, CALLER_ROLE):
        raise Forbidden(
            f"Judge class {class_id} is restricted, and its assertableBy does not name you.",
            code="judge-class-not-allowed",
            judgeClassId=class_id,
        )
    return AssertedClass(class_id, row.assertable_by is not None)
