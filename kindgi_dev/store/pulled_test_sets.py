"""Pulled test-set versions: their source and digest, and their cases in the order pulled."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.json import JSONObject
from .db import Database
from .jsoncol import load


@dataclass(frozen=True)
class PulledRow:
    """One pulled version as stored."""

    test_set_id: str
    version: str
    tenant_id: str
    case_count: int
    digest: str
    source_url: str
    pulled_at: str


_COLUMNS = "test_set_id, version, tenant_id, case_count, digest, source_url, pulled_at"


def find(db: Database, tenant_id: str, test_set_id: str, version: str) -> PulledRow | None:
    """One pulled version of the tenant, or None."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM pulled_test_set_versions "
        "WHERE tenant_id = ? AND test_set_id = ? AND version = ?",
        (tenant_id, test_set_id, version),
    )
    return PulledRow(**dict(row)) if row else None


def versions(db: Database, tenant_id: str, test_set_id: str | None = None) -> list[PulledRow]:
    """The tenant's pulled versions (of one id when given), by id then when pulled."""
    sql = f"SELECT {_COLUMNS} FROM pulled_test_set_versions WHERE tenant_id = ?"
    params = [tenant_id]
    if test_set_id is not None:
        sql += " AND test_set_id = ?"
        params.append(test_set_id)
    rows = db.all(sql + " ORDER BY test_set_id, pulled_at, version", params)
    return [PulledRow(**dict(r)) for r in rows]


def insert(db: Database, meta: PulledRow, bodies: Sequence[str]) -> None:
    """Store a pulled version and its cases (each one's JSON text, already within what every
    answer renders) in one transaction: all of it or nothing."""
    with db.transaction() as conn:
        conn.execute(
            f"INSERT INTO pulled_test_set_versions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                meta.test_set_id,
                meta.version,
                meta.tenant_id,
                meta.case_count,
                meta.digest,
                meta.source_url,
                meta.pulled_at,
            ),
        )
        conn.executemany(
            "INSERT INTO pulled_test_set_cases (test_set_id, version, seq, body) "
            "VALUES (?, ?, ?, ?)",
            [(meta.test_set_id, meta.version, i, body) for i, body in enumerate(bodies)],
        )


def cases(
    db: Database, test_set_id: str, version: str, *, after: int, limit: int
) -> list[tuple[int, JSONObject]]:
    """Up to `limit` (seq, case) of a pulled version after a position, in the order pulled."""
    rows = db.all(
        "SELECT seq, body FROM pulled_test_set_cases WHERE test_set_id = ? AND version = ? "
        "AND seq > ? ORDER BY seq LIMIT ?",
        (test_set_id, version, after, limit),
    )
    return [(r["seq"], _object(r["body"])) for r in rows]


def _object(text: str) -> JSONObject:
    """A kept case: an object (a pull takes no other)."""
    value = load(text)
    assert isinstance(value, dict), "a pulled case is kept as an object"
    return value
