"""`kindgi conversations list|get|messages|open|close|unregister`."""

from __future__ import annotations

import click

from ..domain.json import JSON
from .command import api_command
from .http import Api, in_path


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
) -> JSON:
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
def get(api: Api, conversation_id: str) -> JSON:
    return api.call("GET", f"/v1/conversations/{in_path(conversation_id)}")


@api_command(conversations, "messages", help="A conversation's messages, in order.")
@click.argument("conversation_id")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def messages(api: Api, conversation_id: str, limit: int | None, cursor: str | None) -> JSON:
    params = {"limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/conversations/{in_path(conversation_id)}/messages", params=params)


@api_command(conversations, "open", help="Open a conversation pinned to an agent version.")
@click.argument("agent_id")
@click.argument("version")
@click.option("--title", help='Its title (default "Untitled conversation").')
@click.option("--project", help="Its project (default: the Default project).")
@click.option("--participant", help="Your app's id for the person it is with.")
def open_conversation(
    api: Api,
    agent_id: str,
    version: str,
    title: str | None,
    project: str | None,
    participant: str | None,
) -> JSON:
    body = {
        "agentId": agent_id,
        "agentVersion": version,
        "title": title,
        "projectId": project,
        "participantId": participant,
    }
    sent = {k: v for k, v in body.items() if v is not None}
    return api.call("POST", "/v1/conversations", json=sent, idempotent=True)


@api_command(conversations, "close", help="Close a conversation: it takes no more turns.")
@click.argument("conversation_id")
def close(api: Api, conversation_id: str) -> JSON:
    return api.call("POST", f"/v1/conversations/{in_path(conversation_id)}/close", idempotent=True)


@api_command(conversations, "unregister", help="Unregister a conversation.")
@click.argument("conversation_id")
def unregister(api: Api, conversation_id: str) -> JSON:
    return api.call(
        "POST", f"/v1/conversations/{in_path(conversation_id)}/unregister", idempotent=True
    )
