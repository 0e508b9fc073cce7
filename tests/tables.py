"""Every row of every table, read through a read-only connection, to show that a refused
request wrote nothing; or just how many rows each table holds, through the app's own store.

The connection is SQLite's own (`file:…?mode=ro`), so in the app's process it shares the
process's locks on the file with the app's connections: no descriptor of the database is
opened any other way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from kindgi_dev.store.db import Database

Rows = dict[str, list[tuple[Any, ...]]]


def read_only(database: Path) -> sqlite3.Connection:
    """A read-only connection to the database file."""
    return sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)


def every_row(database: Path | sqlite3.Connection) -> Rows:
    """Each table's rows, by table name: through `database` when it is a connection (one
    kept open beside a server in another process), else through one opened for the read."""
    conn = database if isinstance(database, sqlite3.Connection) else read_only(database)
    try:
        names = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]  # fmt: skip
        return {name: conn.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
    finally:
        if conn is not database:
            conn.close()


def row_counts(db: Database) -> dict[str, int]:
    """How many rows each table holds, by table name (for checks that nothing was written)."""
    names = [row["name"] for row in db.all("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {name: db.one(f'SELECT count(*) AS n FROM "{name}"')["n"] for name in names}
