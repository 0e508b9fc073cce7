"""Many rows into a table with insert triggers, staged in a temp table and moved a few
thousand at a time with one `INSERT … SELECT` (a batch's: #29).

Each row sent as its own statement pays, for every trigger on the table, a statement
journal and a trigger frame (a trigger's frame is the size of its body, m0010's refresh
about 4 kB zeroed): in a batch of corrections a third of its SQL, though the triggers'
`WHEN` finds nothing to do. One statement pays them once and runs the same triggers on
the same rows in the same order, so the stored result is the one-by-one path's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .query import SQLValue

STAGED_AT_ONCE = 2048
"""Rows a statement moves: enough that its own cost is spread thin, few enough that the
temp table's pages stay in its cache rather than going to its file."""


def insert_staged(
    conn: sqlite3.Connection,
    stage: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[SQLValue]],
    move: str,
) -> None:
    """Insert `rows` (values of `columns`) into temp table `stage`, made on first use, and
    run `move` (an `INSERT … SELECT … FROM temp.{stage} ORDER BY rowid`) for each chunk;
    the stage is left empty. Part of the caller's transaction: a rollback empties it too."""
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {stage} ({', '.join(columns)})")
    fill = f"INSERT INTO temp.{stage} VALUES ({', '.join('?' * len(columns))})"
    for start in range(0, len(rows), STAGED_AT_ONCE):
        conn.executemany(fill, rows[start : start + STAGED_AT_ONCE])
        conn.execute(move)
        conn.execute(f"DELETE FROM temp.{stage}")
