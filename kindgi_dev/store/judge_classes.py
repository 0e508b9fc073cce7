"""Judge classes: named, weighted groups of correctors, scoped to a tenant, project or agent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from ..domain.corrections import AssertableBy
from .db import Database, Row
from .jsoncol import Codec, dump
from .query import SQLValue, Where

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


class _Assertable(TypedDict):
    """`assertable_by` as its column keeps it: the parts that are set, API-named."""

    minReviewerRole: NotRequired[str | None]
    principalKinds: NotRequired[list[str] | None]
    principalIds: NotRequired[list[str] | None]


_ASSERTABLE = Codec(_Assertable)


def _assertable_of(text: str | None) -> AssertableBy | None:
    """A class's stored `assertable_by` as its record (None: not restricted)."""
    data = _ASSERTABLE.load(text)
    if not data:
        return None
    kinds, ids = data.get("principalKinds"), data.get("principalIds")
    return AssertableBy(
        data.get("minReviewerRole"),
        None if kinds is None else tuple(kinds),
        None if ids is None else tuple(ids),
    )


@dataclass(frozen=True)
class StoredJudgeClass:
    """A judge class as it is kept: its scope's columns (`scope_kind`, and the project and
    agent it names), name, weight, who may use it (None: anyone), and whether it was retired."""

    id: str
    tenant_id: str
    scope_kind: str
    name: str
    weight: float
    created_at: str
    updated_at: str
    project_id: str | None = None
    agent_id: str | None = None
    description: str | None = None
    assertable_by: AssertableBy | None = None
    unregistered_at: str | None = None


class JudgeClassChanges(TypedDict, total=False):
    """Columns an update of a class sets (a column not named stays)."""

    weight: float
    description: str | None
    assertable_by: AssertableBy | None
    updated_at: str
    unregistered_at: str


def _class(row: Row) -> StoredJudgeClass:
    found = dict(zip(row.keys(), row, strict=True))
    found["assertable_by"] = _assertable_of(row["assertable_by"])
    return StoredJudgeClass(**found)


def insert(db: Database, judge_class: StoredJudgeClass) -> None:
    """Add a class."""
    c = judge_class
    db.run(
        f"INSERT INTO judge_classes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            c.id,
            c.tenant_id,
            c.scope_kind,
            c.project_id,
            c.agent_id,
            c.name,
            c.weight,
            c.description,
            _assertable_json(c.assertable_by),
            c.created_at,
            c.updated_at,
            c.unregistered_at,
        ),
    )


def get(db: Database, class_id: str) -> StoredJudgeClass | None:
    """One class, live or retired."""
    row = db.one(f"SELECT {_COLUMNS} FROM judge_classes WHERE id = ?", (class_id,))
    return _class(row) if row else None


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


def update(db: Database, class_id: str, changes: JudgeClassChanges) -> None:
    """Set some columns of a class (`assertable_by` as its record, stored as JSON)."""
    given: dict[str, object] = dict(changes)
    columns = list(given)
    values = [_column(c, given[c]) for c in columns]
    db.run(
        f"UPDATE judge_classes SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ?",
        [*values, class_id],
    )


def _column(name: str, value: object) -> SQLValue:
    """What a changed column stores: `assertable_by` as JSON, the rest as given."""
    if name == "assertable_by":
        return _assertable_json(value if isinstance(value, AssertableBy) else None)
    return value if isinstance(value, str | int | float) else None


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    scope_kind: str | None,
    project_id: str | None,
    agent_id: str | None,
) -> list[StoredJudgeClass]:
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
    return [_class(row) for row in rows]
