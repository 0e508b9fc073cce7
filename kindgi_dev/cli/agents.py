"""`kindgi agents list|get|versions`: the agents the pack registered, and their versions."""

from __future__ import annotations

from .agent_test_set import test_set
from .catalog import CatalogKind, catalog_group
from .eval_runs import try_on_test_set
from .output import Column
from .releases import add_release_commands

COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("NAME", lambda row: row.get("name")),
    ("UNREGISTERED", lambda row: row.get("unregisteredAt")),
]


agents = catalog_group(CatalogKind("agent", "agents", "An", COLUMNS))

try_on_test_set(test_set)
agents.add_command(test_set)
add_release_commands(agents, COLUMNS)
