"""Conversations: an agent's turns in order, the history a turn reads, and their lists."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..domain.errors import Conflict, NotFound
from ..domain.paging import Page, clamp_limit, decode_cursor, fetch_page, make_page
from ..domain.time import now_iso
from ..store import conversations as store
from ..store import runs as run_store
from ..store.conversations import Message as Message
from .context import Context


def for_turn(
    ctx: Context,
    agent: Mapping[str, Any],
    project_id: str,
    data: Mapping[str, Any],
    *,
    replay: bool = False,
) -> str:
    """The conversation a turn belongs to: the one named in its input, or a new one."""
    given = data.get("conversationId")
    if given:
        row = store.get(ctx.db, given)
        if row is None or row["tenant_id"] != ctx.tenant_id:
            raise NotFound("conversation", given)
        if row["status"] != "open":
            raise Conflict(f"Conversation {given} is closed.", code="conversation-closed")
        if row["project_id"] != project_id:
            raise Conflict(
                f"Conversation {given} is in another project.",
                code="conversation-project-mismatch",
            )
        return str(given)
    conversation_id = str(uuid.uuid4())
    message = str(data.get("userMessage", ""))
    store.insert(
        ctx.db,
        {
            "id": conversation_id,
            "tenant_id": ctx.tenant_id,
            "project_id": project_id,
            "agent_id": agent["id"],
            "agent_version": agent["version"],
            "title": (message[:77] + "…") if len(message) > 80 else message,
            "participant_id": data.get("participantId"),
            "opened_by": ctx.caller.id,
            "status": "open",
            "opened_at": now_iso(),
            "turn_count": 0,
            "replay": 1 if replay else 0,
        },
    )
    return conversation_id


def version_of(ctx: Context, conversation_id: str, agent_id: str) -> str | None:
    """The version of `agent_id` a conversation's turns run (None for an unknown conversation
    or another agent's, which its turn then handles as it opens)."""
    row = store.get(ctx.db, conversation_id)
    if row is None or row["tenant_id"] != ctx.tenant_id or row["agent_id"] != agent_id:
        return None
    return str(row["agent_version"])


def history(ctx: Context, conversation_id: str, *, before_run: str) -> list[dict[str, Any]]:
    """The messages of the conversation's earlier completed turns, in order."""
    messages: list[dict[str, Any]] = []
    for run_id in _turn_runs(ctx, conversation_id):
        if run_id == before_run:
            continue
        run = run_store.get(ctx.db, run_id)
        if run and run["status"] == "completed" and run.get("output"):
            messages.extend(run["output"].get("appended", []))
    return messages


def _turn_runs(ctx: Context, conversation_id: str) -> list[str]:
    return store.turn_runs(ctx.db, conversation_id)


def turn_number(ctx: Context, conversation_id: str, run_id: str) -> int:
    """The 1-based number of a run's turn in its conversation."""
    runs = _turn_runs(ctx, conversation_id)
    return runs.index(run_id) + 1 if run_id in runs else len(runs) + 1


def record_turn(
    ctx: Context, conversation_id: str, run_id: str, appended: list[dict[str, Any]], at: str
) -> None:
    """Add a finished turn's messages to its conversation."""
    items = [
        Message(m["role"], m.get("content"), tool_call=m.get("toolCall") or None) for m in appended
    ]
    store.append(ctx.db, conversation_id, run_id, items, at)


@dataclass(frozen=True)
class ConversationScope:
    """Where a conversation lives: its project."""

    kind: str
    project_id: str


@dataclass(frozen=True)
class Conversation:
    """An agent's conversation: who opened it, its turns, when it was last spoken in."""

    id: str
    tenant_id: str
    agent_id: str
    agent_version: str
    title: str
    project_id: str
    opened_by: str
    scope: ConversationScope
    status: str
    opened_at: str
    turn_count: int
    participant_id: str | None = None
    closed_at: str | None = None
    last_message_at: str | None = None


def conversation_of(row: Mapping[str, Any]) -> Conversation:
    """A stored conversation as its record."""
    return Conversation(
        id=row["id"],
        tenant_id=row["tenant_id"],
        agent_id=row["agent_id"],
        agent_version=row["agent_version"],
        title=row["title"],
        project_id=row["project_id"],
        opened_by=row["opened_by"],
        scope=ConversationScope("project", row["project_id"]),
        status=row["status"],
        opened_at=row["opened_at"],
        turn_count=row["turn_count"],
        participant_id=row["participant_id"] or None,
        closed_at=row["closed_at"] or None,
        last_message_at=row["last_message_at"] or None,
    )


def get(ctx: Context, conversation_id: str) -> Conversation:
    """One conversation; 404 `conversation-not-found`."""
    row = store.get(ctx.db, conversation_id)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        raise NotFound("conversation", conversation_id)
    return conversation_of(row)


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: dict[str, Any],
    replays: str,
) -> Page[Conversation]:
    """A page of conversations, newest first; replays' only when asked for."""
    page = fetch_page(
        lambda size, after: store.list_page(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            filters=filters,
            replays=replays,
        ),
        limit=limit,
        cursor=cursor,
        position=lambda r: (r["opened_at"], r["id"]),
    )
    return page.map(conversation_of)


def messages(
    ctx: Context, conversation_id: str, *, limit: int | None, cursor: str | None
) -> Page[Message]:
    """A page of a conversation's messages, in order."""
    get(ctx, conversation_id)
    size = clamp_limit(limit)
    position = decode_cursor(cursor)
    rows = store.messages(
        ctx.db, conversation_id, after=int(position[0]) if position else -1, limit=size + 1
    )
    return make_page(rows, size, lambda m: (m.sequence,))
