"""`kindgi tools list|get|versions|get-version`: the tools the pack registered."""

from __future__ import annotations

from typing import Any

import click

from .command import api_command
from .http import Api
from .output import Column

DESCRIPTION_WIDTH = 60


def cut(text: str | None, width: int = DESCRIPTION_WIDTH) -> str:
    """A description cut to `width` characters, the last one `…` when it was longer."""
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


COLUMNS: list[Column] = [
    ("ID", lambda row: row.get("id")),
    ("VERSION", lambda row: row.get("version")),
    ("DESCRIPTION", lambda row: cut(row.get("description"))),
]


@click.group("tools", help="Tools: list them, get one, list its versions.")
def tools() -> None:
    """The tools group."""


@api_command(tools, "list", columns=COLUMNS, help="List tools (the latest version of each).")
@click.option("--name", help="Only tools whose id starts with this.")
@click.option("--include-retired", is_flag=True, help="Also tools with no active version.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_tools(
    api: Api, name: str | None, include_retired: bool, limit: int | None, cursor: str | None
) -> Any:
    params: dict[str, Any] = {"name": name, "includeRetired": include_retired or None}
    params.update(limit=limit, cursor=cursor)
    return api.call("GET", "/v1/tools", params=params)


@api_command(tools, "get", help="A tool: its latest active version, or the version given.")
@click.argument("tool_id")
@click.argument("version", required=False)
def get(api: Api, tool_id: str, version: str | None) -> Any:
    if version:
        return api.call("GET", f"/v1/tools/{tool_id}/versions/{version}")
    return api.call("GET", f"/v1/tools/{tool_id}")


@api_command(tools, "get-version", help="One version of a tool.")
@click.argument("tool_id")
@click.argument("version")
def get_version(api: Api, tool_id: str, version: str) -> Any:
    return api.call("GET", f"/v1/tools/{tool_id}/versions/{version}")


@api_command(tools, "versions", help="A tool's versions, lowest first.")
@click.argument("tool_id")
@click.option("--include-unregistered", is_flag=True, help="Also unregistered versions.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def versions(
    api: Api, tool_id: str, include_unregistered: bool, limit: int | None, cursor: str | None
) -> Any:
    params = {"includeTombstoned": include_unregistered or None, "limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/tools/{tool_id}/versions", params=params)
