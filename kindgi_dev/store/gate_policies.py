"""Gate policy versions: published once, never changed, unregistered and reinstated."""

from __future__ import annotations

import sqlite3

from ..domain.gate_specs import GatePolicy
from .db import Database
from .jsoncol import dump, load
from .query import Where
from .release_json import scope_json, scope_of, spec_json, spec_of

_COLUMNS = (
    "id, version, tenant_id, agent_id, scope, scope_key, spec, description, created_at, "
    "unregistered_at"
)


def _policy(row: sqlite3.Row) -> GatePolicy:
    return GatePolicy(
        id=row["id"],
        version=row["version"],
        agent_id=row["agent_id"],
        scope=scope_of(load(row["scope"])),
        spec=spec_of(load(row["spec"])),
        created_at=row["created_at"],
        description=row["description"],
        unregistered_at=row["unregistered_at"],
    )


def insert(db: Database, tenant_id: str, policy: GatePolicy) -> None:
    """Keep a new version."""
    db.run(
        f"INSERT INTO gate_policies ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
        (
            policy.id,
            policy.version,
            tenant_id,
            policy.agent_id,
            dump(scope_json(policy.scope)),
            policy.scope.key,
            dump(spec_json(policy.spec)),
            policy.description,
            policy.created_at,
        ),
    )


def get(db: Database, tenant_id: str, policy_id: str, version: str) -> GatePolicy | None:
    """One version, unregistered or not."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM gate_policies WHERE tenant_id = ? AND id = ? AND version = ?",
        (tenant_id, policy_id, version),
    )
    return None if row is None else _policy(row)


def versions(db: Database, tenant_id: str, policy_id: str) -> list[GatePolicy]:
    """Every version of one policy, in no particular order (semver order is the caller's)."""
    rows = db.all(
        f"SELECT {_COLUMNS} FROM gate_policies WHERE tenant_id = ? AND id = ?",
        (tenant_id, policy_id),
    )
    return [_policy(row) for row in rows]


def all_versions(
    db: Database, tenant_id: str, *, agent_id: str | None = None, scope_key: str | None = None
) -> list[GatePolicy]:
    """Every version of every policy, of one agent or scope when given."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal({"agent_id": agent_id, "scope_key": scope_key})
    rows = db.all(f"SELECT {_COLUMNS} FROM gate_policies WHERE {where}", where.params)
    return [_policy(row) for row in rows]


def set_unregistered(
    db: Database, tenant_id: str, policy_id: str, version: str, at: str | None
) -> None:
    """Mark a version unregistered at `at` (None: active again)."""
    db.run(
        "UPDATE gate_policies SET unregistered_at = ? WHERE tenant_id = ? AND id = ? "
        "AND version = ?",
        (at, tenant_id, policy_id, version),
    )
