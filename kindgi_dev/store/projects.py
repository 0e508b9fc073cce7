"""Projects: the default one and those created through the API."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from .db import Database
from .query import Where

_COLUMNS = "id, tenant_id, org_id, name, slug, description, is_default, created_at, updated_at"
_READ = _COLUMNS + ", production_since"
_CHANGEABLE = ("name", "slug", "description", "production_since", "updated_at")


def insert(db: Database, row: Mapping[str, Any]) -> None:
    """Add a project (its columns by name); `sqlite3.IntegrityError` when its slug or default
    flag is taken."""
    db.run(
        f"INSERT INTO projects ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        tuple(row.get(column) for column in _COLUMNS.split(", ")),
    )


def get(db: Database, project_id: str) -> sqlite3.Row | None:
    """One project by id."""
    return db.one(f"SELECT {_READ} FROM projects WHERE id = ?", (project_id,))


def get_default(db: Database, tenant_id: str) -> sqlite3.Row | None:
    """The tenant's default project."""
    return db.one(
        f"SELECT {_READ} FROM projects WHERE tenant_id = ? AND is_default = 1", (tenant_id,)
    )


def slug_taken(
    db: Database, tenant_id: str, org_id: str | None, slug: str, *, besides: str | None = None
) -> bool:
    """Whether a project in that org (or among org-less ones) has this slug; `besides` is a
    project whose own slug doesn't count (the one being renamed)."""
    row = db.one(
        "SELECT 1 FROM projects WHERE tenant_id = ? AND coalesce(org_id, '') = ? AND slug = ?"
        " AND id IS NOT ?",
        (tenant_id, org_id or "", slug, besides),
    )
    return row is not None


def update(db: Database, project_id: str, changes: Mapping[str, Any]) -> None:
    """Set some of a project's changeable columns."""
    names = [name for name in changes if name in _CHANGEABLE]
    if len(names) != len(changes):
        raise ValueError(f"not changeable: {sorted(set(changes) - set(names))}")
    assignments = ", ".join(f"{name} = ?" for name in names)
    db.run(
        f"UPDATE projects SET {assignments} WHERE id = ?",
        (*(changes[name] for name in names), project_id),
    )


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: list[Any] | None,
    org_id: str | None = None,
    name_contains: str | None = None,
) -> list[sqlite3.Row]:
    """Up to `limit + 1` projects, newest first, after a keyset position."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal({"org_id": org_id or None})
    if name_contains:
        where.add("instr(lower(name), lower(?)) > 0", name_contains)
    where.after(after)
    return db.all(
        f"SELECT {_READ} FROM projects WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
