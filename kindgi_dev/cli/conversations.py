"""`kindgi conversations list|get|messages`."""

from __future__ import annotations

from typing import Any

import click

from .command import api_command
from .http import Api


@click.group("conversations", help="Conversations: an agent's turns.")
def conversations() -> None:
    """The conversations group."""


@api_command(conversations, "list", help="List conversations, newest first.")
@click.option("--agent")
@click.option("--status", type=click.Choice(["open", "closed"]))
@click.option("--opened-by", type=click.Choice(["me"]))
@click.option("--replays", type=click.Choice(["exclude", "include", "only"]))
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_conversations(
    api: Api,
    agent: str | None,
    status: str | None,
    opened_by: str | None,
    replays: str | None,
    limit: int | None,
    cursor: str | None,
) -> Any:
    params = {
        "agentId": agent,
        "status": status,
        "openedBy": opened_by,
        "replays": replays,
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/conversations", params=params)


@api_command(conversations, "get", help="One conversation.")
@click.argument("conversation_id")
def get(api: Api, conversation_id: str) -> Any:
    return api.call("GET", f"/v1/conversations/{conversation_id}")


@api_command(conversations, "messages", help="A conversation's messages, in order.")
@click.argument("conversation_id")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def messages(api: Api, conversation_id: str, limit: int | None, cursor: str | None) -> Any:
    params = {"limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/conversations/{conversation_id}/messages", params=params)
