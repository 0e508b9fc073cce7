"""Conversations: opened, continued by turns, closed and unregistered; the history a turn
reads, and their lists.

A conversation pins its agent version when it opens: a follow-up turn that names no version
runs the conversation's, whatever is live or latest since.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..domain.errors import BadInput, Conflict, NotFound, ValidationFailed
from ..domain.json import JSONObject
from ..domain.paging import Page, clamp_limit, fetch_page, make_page, whole_after
from ..domain.time import now_iso
from ..ids import ordered_ids
from ..store import conversations as store
from ..store import runs as run_store
from ..store.conversations import ConversationMessage as ConversationMessage
from ..store.conversations import StoredConversation
from ..store.query import SQLValue
from . import catalog, projects
from .context import Context

UNTITLED = "Untitled conversation"


def principal(ctx: Context) -> str:
    """The caller as a conversation's `openedBy` names it: `user:<id>`."""
    return f"{ctx.caller.kind}:{ctx.caller.id}"


@dataclass(frozen=True)
class Opening:
    """What `conversations.open` asks for: the agent version it pins, and its details."""

    agent_id: str
    agent_version: str
    title: str | None = None
    project_id: str | None = None
    scope: JSONObject | None = None
    participant_id: str | None = None
    metadata: dict[str, Any] | None = None


def open_conversation(ctx: Context, opening: Opening) -> Conversation:
    """Open a conversation pinned to an agent version; 400 when the project or the version
    isn't one this runtime has. Nothing is stored on a refusal."""
    try:
        catalog.get_agent(ctx, opening.agent_id, opening.agent_version)
    except NotFound:
        reason = f"agent {opening.agent_id} has no version {opening.agent_version} here"
        raise ValidationFailed(
            "agentId",
            reason,
            code="reference-out-of-scope",
            issues=[{"path": "/agentId", "message": reason}],
        ) from None
    try:
        project_id = projects.require(ctx, opening.project_id)
    except NotFound:
        raise BadInput(
            f"projectId: no project {opening.project_id} in this tenant.", field="projectId"
        ) from None
    conversation_id = ordered_ids(1)[0]  # its messages' index grows at its last page
    store.insert(
        ctx.db,
        StoredConversation(
            id=conversation_id,
            tenant_id=ctx.tenant_id,
            project_id=project_id,
            agent_id=opening.agent_id,
            agent_version=opening.agent_version,
            title=opening.title if opening.title is not None else UNTITLED,
            participant_id=opening.participant_id,
            opened_by=principal(ctx),
            status="open",
            opened_at=now_iso(),
            scope=opening.scope,
            metadata=opening.metadata,
        ),
    )
    return get(ctx, conversation_id)


def close(ctx: Context, conversation_id: str) -> Conversation:
    """Close it: it takes no more turns. Closing a closed one changes nothing."""
    _live_row(ctx, conversation_id)
    store.close(ctx.db, conversation_id, now_iso())
    return get(ctx, conversation_id)


def unregister(ctx: Context, conversation_id: str) -> Conversation:
    """Tombstone it: no read, list or turn finds it again; the answer has `unregisteredAt`."""
    _live_row(ctx, conversation_id)
    store.unregister(ctx.db, conversation_id, now_iso())
    found = store.get(ctx.db, conversation_id)
    assert found is not None
    return conversation_of(found)


def _live_row(ctx: Context, conversation_id: str) -> StoredConversation:
    """A conversation of this tenant not unregistered; 404 `conversation-not-found`."""
    found = store.get(ctx.db, conversation_id)
    if found is None or found.tenant_id != ctx.tenant_id or found.unregistered_at:
        raise NotFound("conversation", conversation_id)
    return found


def pinned_version(ctx: Context, agent_id: str, data: Any) -> str | None:
    """The version a follow-up turn runs when it names none: its conversation's (None for a
    turn that opens one). The conversation must be this agent's."""
    given = data.get("conversationId") if isinstance(data, dict) else None
    if not isinstance(given, str) or not given:
        return None
    found = _live_row(ctx, given)
    if found.agent_id != agent_id:
        raise ValidationFailed(
            "input/conversationId", f"is a conversation with agent {found.agent_id}"
        )
    return found.agent_version


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
        found = _live_row(ctx, given)
        if found.status != "open":
            raise Conflict(
                f"Conversation {given} is closed: it takes no more turns.",
                code="conversation-closed",
                conversationId=given,
            )
        if found.project_id != project_id:
            raise Conflict(
                f"Conversation {given} is in another project.",
                code="conversation-project-mismatch",
                projectId=project_id,
                conversationProjectId=found.project_id,
            )
        return str(given)
    conversation_id = ordered_ids(1)[0]  # its messages' index grows at its last page
    message = str(data.get("userMessage", ""))
    store.insert(
        ctx.db,
        StoredConversation(
            id=conversation_id,
            tenant_id=ctx.tenant_id,
            project_id=project_id,
            agent_id=agent["id"],
            agent_version=agent["version"],
            title=title_of(message),
            participant_id=data.get("participantId"),
            opened_by=principal(ctx),
            status="open",
            opened_at=now_iso(),
            replay=replay,
        ),
    )
    return conversation_id


def title_of(message: str) -> str:
    """A conversation's title: its first message, cut at 80 characters."""
    return (message[:77] + "…") if len(message) > 80 else message


def history(ctx: Context, conversation_id: str, *, before_run: str) -> list[dict[str, Any]]:
    """The messages of the conversation's earlier completed turns, in order."""
    messages: list[dict[str, Any]] = []
    for run_id in _turn_runs(ctx, conversation_id):
        if run_id == before_run:
            continue
        run = run_store.get(ctx.db, run_id)
        if run and run.status == "completed" and isinstance(run.output, dict):
            appended = run.output.get("appended")
            if isinstance(appended, list):
                messages.extend(m for m in appended if isinstance(m, dict))
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
        ConversationMessage(m["role"], m.get("content"), tool_call=m.get("toolCall") or None)
        for m in appended
    ]
    store.append(ctx.db, conversation_id, run_id, items, at)


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
    scope: dict[str, Any]
    status: str
    opened_at: str
    turn_count: int
    participant_id: str | None = None
    closed_at: str | None = None
    last_message_at: str | None = None
    unregistered_at: str | None = None
    metadata: dict[str, Any] | None = None


def conversation_of(stored: StoredConversation) -> Conversation:
    """A stored conversation as its record."""
    return Conversation(
        id=stored.id,
        tenant_id=stored.tenant_id,
        agent_id=stored.agent_id,
        agent_version=stored.agent_version,
        title=stored.title,
        project_id=stored.project_id,
        opened_by=stored.opened_by,
        scope=stored.scope or {"kind": "project", "projectId": stored.project_id},
        status=stored.status,
        opened_at=stored.opened_at,
        turn_count=stored.turn_count,
        participant_id=stored.participant_id or None,
        closed_at=stored.closed_at or None,
        last_message_at=stored.last_message_at or None,
        unregistered_at=stored.unregistered_at or None,
        metadata=stored.metadata,
    )


def get(ctx: Context, conversation_id: str) -> Conversation:
    """One conversation; 404 `conversation-not-found` (an unregistered one too)."""
    return conversation_of(_live_row(ctx, conversation_id))


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: Mapping[str, SQLValue],
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
        position=lambda c: (c.opened_at, c.id),
    )
    return page.map(conversation_of)


def messages(
    ctx: Context, conversation_id: str, *, limit: int | None, cursor: str | None
) -> Page[ConversationMessage]:
    """A page of a conversation's messages, in order."""
    get(ctx, conversation_id)
    size = clamp_limit(limit)
    after = whole_after(cursor)
    rows = store.messages(
        ctx.db, conversation_id, after=-1 if after is None else after, limit=size + 1
    )
    return make_page(rows, size, lambda m: (m.sequence,))
