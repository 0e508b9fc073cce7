"""Numbered migrations: each module `mNNNN_name.py` holds `SQL`, applied once in order
(and may add `rewrite(conn)`, run after its SQL, for rows SQL can't reshape).

Modules are found by name, so each resource adds its own file without touching a
shared list; `schema_migrations` records which ran.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

_NAME = re.compile(r"^m(\d{4})_(\w+)$")


@dataclass(frozen=True)
class Migration:
    """One numbered schema change."""

    version: int
    name: str
    sql: str
    rewrite: Callable[[sqlite3.Connection], None] | None = None

    def statements(self) -> list[str]:
        """The migration's SQL split into statements; a trigger's body stays whole (none of
        ours has `;` inside a literal)."""
        found, pending = [], ""
        for part in self.sql.split(";"):
            pending += part + ";"
            if sqlite3.complete_statement(pending):
                if pending.strip(" \n;"):
                    found.append(pending.strip())
                pending = ""
        return found


def _discover() -> list[Migration]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        match = _NAME.match(info.name)
        if match:
            module = importlib.import_module(f"{__name__}.{info.name}")
            rewrite = getattr(module, "rewrite", None)
            found.append(Migration(int(match.group(1)), match.group(2), module.SQL, rewrite))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a number: {versions}")
    return found


MIGRATIONS = _discover()
