"""Every row of every table, read through a read-only connection of its own, to show that a
refused request wrote nothing.

The connection is SQLite's own (`file:…?mode=ro`), so it shares the process's locks on the
file with the app's connections; no descriptor of the database is opened any other way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

Rows = dict[str, list[tuple[Any, ...]]]


def every_row(database: Path) -> Rows:
    """Each table's rows, by table name."""
    conn = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]  # fmt: skip
        return {name: conn.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
    finally:
        conn.close()
