"""Every row of every table of a kindgi dev database, read through a read-only connection of
its own (`file:…?mode=ro`), for tests that check a refused call wrote nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def every_row(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Each table's rows, sorted, by table name."""
    reader = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        names = [
            row[0]
            for row in reader.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {
            name: sorted(reader.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in sorted(names)
        }
    finally:
        reader.close()
