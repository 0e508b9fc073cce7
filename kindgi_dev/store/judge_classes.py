"""Judge classes: named, weighted groups of correctors, scoped to a tenant, project or agent."""

from __future__ import annotations

from typing import Any

from ..domain.corrections import AssertableBy
from .db import Database
from .jsoncol import dump, load
from .query import Where

_COLUMNS = (
    "id, tenant_id, scope_kind, project_id, agent_id, name, weight, description, "
    "assertable_by, created_at, updated_at, unregistered_at"
)


def _assertable_json(assertable_by: AssertableBy | None) -> str | None:
    """Who may use a class as its column keeps it: the parts that are set, as the API
    names them (`minReviewerRole`, `principalKinds`, `principalIds`)."""
    if assertable_by is None:
        return None
    parts = {
        "minReviewerRole": assertable_by.min_reviewer_role,
        "principalKinds": assertable_by.principal_kinds,
        "principalIds": assertable_by.principal_ids,
    }
    given = {name: part for name, part in parts.items() if part is not None}
    return dump({name: list(p) if isinstance(p, tuple) else p for name, p in given.items()})


def _assertable_of(text: str | None) -> AssertableBy | None:
    """A class's stored `assertable_by` as its record (None: not restricted)."""
    data = load(text)
    if not data:
        return None
    kinds, ids = data.get("principalKinds"), data.get("principalIds")
    return AssertableBy(
        data.get("minReviewerRole"),
        None if kinds is None else tuple(kinds),
        None if ids is None else tuple(ids),
    )


def _row(row: Any) -> dict[str, Any]:
    record = dict(row)
    record["assertable_by"] = _assertable_of(record["assertable_by"])
    return record


def insert(db: Database, judge_class: dict[str, Any]) -> None:
    """Add a class (a row dict with the table's column names)."""
    db.run(
        f"INSERT INTO judge_classes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            judge_class["id"],
            judge_class["tenant_id"],
            judge_class["scope_kind"],
            judge_class.get("project_id"),
            judge_class.get("agent_id"),
            judge_class["name"],
            judge_class["weight"],
            judge_class.get("description"),
            _assertable_json(judge_class.get("assertable_by")),
            judge_class["created_at"],
            judge_class["updated_at"],
            None,
        ),
    )


def get(db: Database, class_id: str) -> dict[str, Any] | None:
    """One class, live or retired."""
    row = db.one(f"SELECT {_COLUMNS} FROM judge_classes WHERE id = ?", (class_id,))
    return _row(row) if row else None


def name_taken(
    db: Database,
    tenant_id: str,
    scope: tuple[str, str | None, str | None],
    name: str,
) -> bool:
    """Whether a live class of that scope (kind, project, agent) has this name."""
    kind, project_id, agent_id = scope
    row = db.one(
        "SELECT 1 FROM judge_classes WHERE tenant_id = ? AND scope_kind = ? "
        "AND coalesce(project_id, '') = ? AND coalesce(agent_id, '') = ? AND name = ? "
        "AND unregistered_at IS NULL",
        (tenant_id, kind, project_id or "", agent_id or "", name),
    )
    return row is not None


def update(db: Database, class_id: str, changes: dict[str, Any]) -> None:
    """Set some columns of a class (`assertable_by` as its record, stored as JSON)."""
    columns = list(changes)
    values = [_assertable_json(changes[c]) if c == "assertable_by" else changes[c] for c in columns]
    db.run(
        f"UPDATE judge_classes SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ?",
        [*values, class_id],
    )


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: list[Any] | None,
    scope_kind: str | None,
    project_id: str | None,
    agent_id: str | None,
) -> list[dict[str, Any]]:
    """Up to `limit + 1` live classes, newest first, of one scope when asked."""
    where = Where("tenant_id = ?", tenant_id)
    where.add("unregistered_at IS NULL")
    where.equal({"scope_kind": scope_kind, "project_id": project_id, "agent_id": agent_id})
    where.after(after)
    rows = db.all(
        f"SELECT {_COLUMNS} FROM judge_classes WHERE {where} "
        "ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_row(row) for row in rows]
