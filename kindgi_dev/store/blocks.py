"""Data block versions: published once, never changed, unregistered softly."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..domain.blocks import Block
from .db import Database, Row
from .jsoncol import dump, load_object
from .query import marks

_COLUMNS = "id, version, kind, content, project_id, published_at, description, unregistered_at"


def _block(row: Row) -> Block:
    return Block(
        id=row["id"],
        version=row["version"],
        kind=row["kind"],
        content=load_object(row["content"]),
        project_id=row["project_id"],
        published_at=row["published_at"],
        description=row["description"],
        unregistered_at=row["unregistered_at"],
    )


def insert(db: Database, tenant_id: str, block: Block) -> bool:
    """Add a version; False (and nothing written) when the version is taken."""
    try:
        db.run(
            f"INSERT INTO blocks (tenant_id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                tenant_id,
                block.id,
                block.version,
                block.kind,
                dump(block.content),
                block.project_id,
                block.published_at,
                block.description,
                block.unregistered_at,
            ),
        )
    except sqlite3.IntegrityError:
        return False
    return True


def versions_of(db: Database, tenant_id: str, block_ids: Sequence[str]) -> list[Block]:
    """Every version of these blocks, unregistered ones too, in no particular order."""
    if not block_ids:
        return []
    places = marks(block_ids)
    rows = db.all(
        f"SELECT {_COLUMNS} FROM blocks WHERE tenant_id = ? AND id IN ({places})",
        (tenant_id, *block_ids),
    )
    return [_block(row) for row in rows]


def all_versions(db: Database, tenant_id: str) -> list[Block]:
    """Every version of every block, ordered by id."""
    rows = db.all(f"SELECT {_COLUMNS} FROM blocks WHERE tenant_id = ? ORDER BY id", (tenant_id,))
    return [_block(row) for row in rows]


def set_unregistered(
    db: Database, tenant_id: str, block_id: str, version: str, at: str | None
) -> None:
    """Unregister a version (`at`), or reinstate it (None)."""
    db.run(
        "UPDATE blocks SET unregistered_at = ? WHERE tenant_id = ? AND id = ? AND version = ?",
        (at, tenant_id, block_id, version),
    )
