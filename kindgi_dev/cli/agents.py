"""`kindgi agents list|get|versions`: the agents the pack registered, and their versions."""

from __future__ import annotations

from typing import Any

import click

from .agent_test_set import test_set
from .command import api_command
from .eval_runs import try_on_test_set
from .http import Api
from .output import Column

COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("NAME", lambda row: row.get("name")),
    ("UNREGISTERED", lambda row: row.get("unregisteredAt")),
]


@click.group("agents", help="Agents: list them, get one, list its versions.")
def agents() -> None:
    """The agents group."""


@api_command(agents, "list", columns=COLUMNS, help="List agents (the latest version of each).")
@click.option("--name", help="Only agents whose id starts with this.")
@click.option("--include-retired", is_flag=True, help="Also agents with no active version.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_agents(
    api: Api, name: str | None, include_retired: bool, limit: int | None, cursor: str | None
) -> Any:
    params: dict[str, Any] = {"name": name, "includeRetired": include_retired or None}
    params.update(limit=limit, cursor=cursor)
    return api.call("GET", "/v1/agents", params=params)


@api_command(agents, "get", help="An agent: its latest active version, or the version given.")
@click.argument("agent_id")
@click.argument("version", required=False)
def get(api: Api, agent_id: str, version: str | None) -> Any:
    if version:
        return api.call("GET", f"/v1/agents/{agent_id}/versions/{version}")
    return api.call("GET", f"/v1/agents/{agent_id}")


@api_command(agents, "versions", columns=COLUMNS, help="An agent's versions, lowest first.")
@click.argument("agent_id")
@click.option("--include-unregistered", is_flag=True, help="Also unregistered versions.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def versions(
    api: Api, agent_id: str, include_unregistered: bool, limit: int | None, cursor: str | None
) -> Any:
    params = {"includeTombstoned": include_unregistered or None, "limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/agents/{agent_id}/versions", params=params)


try_on_test_set(test_set)
agents.add_command(test_set)
