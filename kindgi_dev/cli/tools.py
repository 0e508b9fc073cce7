"""`kindgi tools list|get|versions|get-version`: the tools the pack registered."""

from __future__ import annotations

from .catalog import CatalogKind, catalog_group
from .output import Column

DESCRIPTION_WIDTH = 60


def cut(described: object, width: int = DESCRIPTION_WIDTH) -> str:
    """A description cut to `width` characters, the last one `…` when it was longer."""
    text = " ".join(str(described or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("DESCRIPTION", lambda row: cut(row.get("description"))),
]


tools = catalog_group(
    CatalogKind("tool", "tools", "A", COLUMNS, version_table=False, get_version=True)
)
