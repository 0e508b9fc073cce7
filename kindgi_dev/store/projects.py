"""Projects: the default one and those created through the API."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .db import Database
from .query import SQLValue, Where

_COLUMNS = "id, tenant_id, org_id, name, slug, description, is_default, created_at, updated_at"
_READ = _COLUMNS + ", production_since"
_CHANGEABLE = ("name", "slug", "description", "production_since", "updated_at")


@dataclass(frozen=True)
class Project:
    """A project: the tenant's default one or one created through the API."""

    id: str
    tenant_id: str
    name: str
    slug: str
    is_default: bool
    created_at: str
    updated_at: str
    org_id: str | None = None
    description: str | None = None
    production_since: str | None = None


def _project(row: sqlite3.Row) -> Project:
    return Project(
        id=row["id"],
        tenant_id=row["tenant_id"],
        name=row["name"],
        slug=row["slug"],
        is_default=bool(row["is_default"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        org_id=row["org_id"] or None,
        description=row["description"],
        production_since=row["production_since"],
    )


def insert(db: Database, project: Project) -> None:
    """Add a project (its `production_since` is set later, by `update`);
    `sqlite3.IntegrityError` when its slug or default flag is taken."""
    db.run(
        f"INSERT INTO projects ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            project.id,
            project.tenant_id,
            project.org_id,
            project.name,
            project.slug,
            project.description,
            1 if project.is_default else 0,
            project.created_at,
            project.updated_at,
        ),
    )


def get(db: Database, project_id: str) -> Project | None:
    """One project by id."""
    row = db.one(f"SELECT {_READ} FROM projects WHERE id = ?", (project_id,))
    return None if row is None else _project(row)


def get_default(db: Database, tenant_id: str) -> Project | None:
    """The tenant's default project."""
    row = db.one(
        f"SELECT {_READ} FROM projects WHERE tenant_id = ? AND is_default = 1", (tenant_id,)
    )
    return None if row is None else _project(row)


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


def update(db: Database, project_id: str, changes: Mapping[str, SQLValue]) -> None:
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
    after: Sequence[SQLValue] | None,
    org_id: str | None = None,
    name_contains: str | None = None,
) -> list[Project]:
    """Up to `limit + 1` projects, newest first, after a keyset position."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal({"org_id": org_id or None})
    if name_contains:
        where.add("instr(lower(name), lower(?)) > 0", name_contains)
    where.after(after)
    rows = db.all(
        f"SELECT {_READ} FROM projects WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_project(row) for row in rows]
