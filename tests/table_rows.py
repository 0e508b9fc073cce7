"""Every row of every table, read through a read-only connection of its own: a refused
request must leave all of it as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def every_row(database: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """Each table's rows, in rowid order, from a `mode=ro` connection (never a descriptor
    opened and closed beside the live one)."""
    check = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        names = [r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {name: check.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}
    finally:
        check.close()
