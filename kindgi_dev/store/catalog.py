"""The catalog's tables: one row per registered agent, tool or flow version.

Each kind has its own table of the same shape; `kind` picks it. The manifest is stored
as the wire shows it, with a hash of its content to tell an edited version from a new one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..domain.catalog import Kind
from .db import Database
from .query import Where

_TABLES = {
    "agent": "agent_versions",
    "tool": "tool_versions",
    "flow": "flow_versions",
}
_COLUMNS = "id, version, manifest, content_hash, registered_at, updated_at, unregistered_at"


def _table(kind: Kind) -> str:
    """The table of one kind (never a value from a request: `Kind` is a closed set)."""
    return _TABLES[kind]


def manifest_of(row: sqlite3.Row) -> dict[str, Any]:
    """The stored manifest, with `unregisteredAt` when the version is unregistered."""
    manifest: dict[str, Any] = json.loads(row["manifest"])
    if row["unregistered_at"]:
        manifest["unregisteredAt"] = row["unregistered_at"]
    return manifest


def get(db: Database, kind: Kind, item_id: str, version: str) -> sqlite3.Row | None:
    """One version."""
    return db.one(
        f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id = ? AND version = ?", (item_id, version)
    )


def versions(db: Database, kind: Kind, item_id: str) -> list[sqlite3.Row]:
    """Every version of one id, in no particular order (semver order is the caller's)."""
    return db.all(f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id = ?", (item_id,))


def insert(db: Database, kind: Kind, row: dict[str, Any]) -> None:
    """Register a new version."""
    db.run(
        f"INSERT INTO {_table(kind)} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL)",
        (
            row["id"],
            row["version"],
            row["manifest"],
            row["content_hash"],
            row["registered_at"],
            row["updated_at"],
        ),
    )


def update_content(
    db: Database, kind: Kind, item_id: str, version: str, manifest: str, content_hash: str, at: str
) -> None:
    """Replace a version's manifest in place (its content changed without a new version)."""
    db.run(
        f"UPDATE {_table(kind)} SET manifest = ?, content_hash = ?, updated_at = ? "
        "WHERE id = ? AND version = ?",
        (manifest, content_hash, at, item_id, version),
    )


def set_unregistered(db: Database, kind: Kind, item_id: str, version: str, at: str | None) -> int:
    """Mark a version unregistered at `at` (None registers it again); rows changed."""
    return db.run(
        f"UPDATE {_table(kind)} SET unregistered_at = ?, updated_at = coalesce(?, updated_at) "
        "WHERE id = ? AND version = ?",
        (at, at, item_id, version),
    )


def page_ids(
    db: Database,
    kind: Kind,
    *,
    prefix: str | None,
    after: str | None,
    limit: int,
    active_only: bool,
) -> list[str]:
    """Up to `limit` ids in ascending order after `after`, starting with `prefix`.

    With `active_only`, only ids that have a version not unregistered.
    """
    where = Where("id > ?", after or "")  # every id sorts after "", so no position: all
    if active_only:
        where.add("unregistered_at IS NULL")
    if prefix:
        where.add("substr(id, 1, ?) = ?", len(prefix), prefix)
    rows = db.all(
        f"SELECT DISTINCT id FROM {_table(kind)} WHERE {where} ORDER BY id LIMIT ?",
        [*where.params, limit],
    )
    return [row["id"] for row in rows]


def versions_of(db: Database, kind: Kind, ids: Sequence[str]) -> list[sqlite3.Row]:
    """Every version of each of `ids`."""
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    return db.all(f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id IN ({marks})", list(ids))
