"""The ledger of memory erasures: what kind of selector each had, who asked, what it cleared.

No row keeps whom an erasure erased: a completed erasure holds no identifier.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .db import Database
from .jsoncol import Codec, dump

_COUNTS = Codec(dict[str, int])
"""What an erasure cleared: how many of each kind of thing."""
_COLUMNS = (
    "seq, id, tenant_id, selector_kind, status, requested_by, counts, created_at, started_at, "
    "completed_at"
)


@dataclass(frozen=True)
class ErasureRow:
    """One erasure as the ledger keeps it."""

    id: str
    tenant_id: str
    selector_kind: str
    status: str
    requested_by: str
    counts: dict[str, int]
    created_at: str
    started_at: str | None = None
    completed_at: str | None = None


def _row(row: sqlite3.Row) -> ErasureRow:
    return ErasureRow(
        row["id"],
        row["tenant_id"],
        row["selector_kind"],
        row["status"],
        row["requested_by"],
        _COUNTS.load(row["counts"]) or {},
        row["created_at"],
        row["started_at"],
        row["completed_at"],
    )


def insert(db: Database, erasure: ErasureRow) -> None:
    """Record an erasure."""
    db.run(
        "INSERT INTO memory_erasures (id, tenant_id, selector_kind, status, requested_by, "
        "counts, created_at, started_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            erasure.id,
            erasure.tenant_id,
            erasure.selector_kind,
            erasure.status,
            erasure.requested_by,
            dump(erasure.counts),
            erasure.created_at,
            erasure.started_at,
            erasure.completed_at,
        ),
    )


def get(db: Database, tenant_id: str, erasure_id: str) -> ErasureRow | None:
    """One erasure."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM memory_erasures WHERE tenant_id = ? AND id = ?",
        (tenant_id, erasure_id),
    )
    return None if row is None else _row(row)


def page(
    db: Database, tenant_id: str, *, after: int | None, limit: int, newest_first: bool = True
) -> list[tuple[int, ErasureRow]]:
    """Up to `limit` erasures in order, each with its position."""
    order, compare = ("DESC", "<") if newest_first else ("ASC", ">")
    where, params = "tenant_id = ?", [tenant_id]
    if after is not None:
        where += f" AND seq {compare} {int(after)}"
    rows = db.all(
        f"SELECT {_COLUMNS} FROM memory_erasures WHERE {where} ORDER BY seq {order} LIMIT ?",
        [*params, limit],
    )
    return [(r["seq"], _row(r)) for r in rows]
