"""The catalog's tables: one row per registered agent, tool or flow version.

Each kind has its own table of the same shape; `kind` picks it. The manifest is stored
as the wire shows it, with a hash of its content to tell an edited version from a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.catalog import Kind
from ..domain.json import JSONObject
from .db import Database
from .jsoncol import load
from .query import Where, marks

_TABLES = {
    "agent": "agent_versions",
    "tool": "tool_versions",
    "flow": "flow_versions",
}
_COLUMNS = "id, version, manifest, content_hash, registered_at, updated_at, unregistered_at"


def _table(kind: Kind) -> str:
    """The table of one kind (never a value from a request: `Kind` is a closed set)."""
    return _TABLES[kind]


@dataclass(frozen=True)
class CatalogVersion:
    """One registered version of an agent, tool or flow: its manifest's JSON text as the
    wire shows it (read with `manifest_of`, only by those who need it), the hash of that
    text, and when it was registered, last changed, and unregistered."""

    id: str
    version: str
    manifest: str
    content_hash: str
    registered_at: str
    updated_at: str
    unregistered_at: str | None = None


def _version(row: sqlite3.Row) -> CatalogVersion:
    return CatalogVersion(*row)


def manifest_of(found: CatalogVersion) -> JSONObject:
    """The stored manifest, with `unregisteredAt` when the version is unregistered."""
    manifest = load(found.manifest)
    if not isinstance(manifest, dict):
        raise ValueError(f"{found.id}@{found.version}'s manifest is not a JSON object")
    if found.unregistered_at:
        manifest["unregisteredAt"] = found.unregistered_at
    return manifest


def get(db: Database, kind: Kind, item_id: str, version: str) -> CatalogVersion | None:
    """One version."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id = ? AND version = ?", (item_id, version)
    )
    return None if row is None else _version(row)


def versions(db: Database, kind: Kind, item_id: str) -> list[CatalogVersion]:
    """Every version of one id, in no particular order (semver order is the caller's)."""
    rows = db.all(f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id = ?", (item_id,))
    return [_version(row) for row in rows]


def insert(db: Database, kind: Kind, found: CatalogVersion) -> None:
    """Register a new version."""
    db.run(
        f"INSERT INTO {_table(kind)} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL)",
        (
            found.id,
            found.version,
            found.manifest,
            found.content_hash,
            found.registered_at,
            found.updated_at,
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


def versions_of(db: Database, kind: Kind, ids: Sequence[str]) -> list[CatalogVersion]:
    """Every version of each of `ids`."""
    if not ids:
        return []
    places = marks(ids)
    rows = db.all(f"SELECT {_COLUMNS} FROM {_table(kind)} WHERE id IN ({places})", list(ids))
    return [_version(row) for row in rows]
