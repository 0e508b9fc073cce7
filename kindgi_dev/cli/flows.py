"""`kindgi flows list|get|versions`: the flows the pack registered, and their versions."""

from __future__ import annotations

from .answers import objects
from .catalog import CatalogKind, catalog_group
from .output import Column

COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("NAME", lambda row: row.get("name")),
    ("NODES", lambda row: len(objects(row.get("nodes")))),
    ("UNREGISTERED", lambda row: row.get("unregisteredAt")),
]


flows = catalog_group(CatalogKind("flow", "flows", "A", COLUMNS))
