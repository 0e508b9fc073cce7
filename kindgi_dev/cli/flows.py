"""`kindgi flows list|get|versions`: the flows the pack registered, and their versions."""

from __future__ import annotations

from typing import Any

import click

from .command import api_command
from .http import Api
from .output import Column

COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("NAME", lambda row: row.get("name")),
    ("NODES", lambda row: len(row.get("nodes") or [])),
    ("UNREGISTERED", lambda row: row.get("unregisteredAt")),
]


@click.group("flows", help="Flows: list them, get one, list its versions.")
def flows() -> None:
    """The flows group."""


@api_command(flows, "list", columns=COLUMNS, help="List flows (the latest version of each).")
@click.option("--name", help="Only flows whose id starts with this.")
@click.option("--include-retired", is_flag=True, help="Also flows with no active version.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_flows(
    api: Api, name: str | None, include_retired: bool, limit: int | None, cursor: str | None
) -> Any:
    params: dict[str, Any] = {"name": name, "includeRetired": include_retired or None}
    params.update(limit=limit, cursor=cursor)
    return api.call("GET", "/v1/flows", params=params)


@api_command(flows, "get", help="A flow: its latest active version, or the version given.")
@click.argument("flow_id")
@click.argument("version", required=False)
def get(api: Api, flow_id: str, version: str | None) -> Any:
    if version:
        return api.call("GET", f"/v1/flows/{flow_id}/versions/{version}")
    return api.call("GET", f"/v1/flows/{flow_id}")


@api_command(flows, "versions", columns=COLUMNS, help="A flow's versions, lowest first.")
@click.argument("flow_id")
@click.option("--include-unregistered", is_flag=True, help="Also unregistered versions.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def versions(
    api: Api, flow_id: str, include_unregistered: bool, limit: int | None, cursor: str | None
) -> Any:
    params = {"includeTombstoned": include_unregistered or None, "limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/flows/{flow_id}/versions", params=params)
