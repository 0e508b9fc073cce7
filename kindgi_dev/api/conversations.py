"""`/v1/conversations`: an agent's turns, listed and read with their messages."""

from __future__ import annotations

from typing import Any, Literal, cast

from ..domain.paging import Page
from ..services import conversations
from .routing import Call, Endpoint, plain
from .wire import WireModel


class Conversation(WireModel):
    """A conversation as the contract shapes it."""

    id: str
    tenant_id: str
    agent_id: str
    agent_version: str
    title: str
    participant_id: str | None = None
    project_id: str | None = None
    opened_by: str | None = None
    scope: dict[str, Any]
    status: Literal["open", "closed"]
    opened_at: str
    closed_at: str | None = None
    turn_count: int
    last_message_at: str | None = None


class ConversationPage(WireModel):
    """A page of conversations; `openedBy: me` echoed when the list was filtered by it."""

    data: list[Conversation]
    has_more: bool
    next_cursor: str | None = None
    opened_by: Literal["me"] | None = None


class Message(WireModel):
    """A message of a conversation; `content` and `toolCall` as the turn made them."""

    sequence: int
    role: str
    content: Any
    tool_call: Any = None
    actor: str | None = None
    created_at: str


class MessagePage(WireModel):
    """A page of a conversation's messages."""

    data: list[Message]
    has_more: bool
    next_cursor: str | None = None


class ConversationQuery(WireModel):
    """Filters of `conversations.list`."""

    limit: int | None = None
    cursor: str | None = None
    agent_id: str | None = None
    status: Literal["open", "closed"] | None = None
    replays: Literal["exclude", "include", "only"] = "exclude"
    opened_by: Literal["me"] | None = None
    scope_kind: str | None = None
    scope_id: str | None = None


class PageQuery(WireModel):
    """Paging only."""

    limit: int | None = None
    cursor: str | None = None


async def list_conversations(call: Call[Any, ConversationQuery]) -> ConversationPage:
    q = call.query
    filters = {
        "agent_id": q.agent_id,
        "status": q.status,
        "opened_by": call.ctx.caller.id if q.opened_by == "me" else None,
        "project_id": q.scope_id if q.scope_kind == "project" else None,
    }
    page = conversations.list_page(
        call.ctx, limit=q.limit, cursor=q.cursor, filters=filters, replays=q.replays
    )
    body = cast(dict[str, Any], plain(page))
    if q.opened_by == "me":
        body["opened_by"] = "me"
    return ConversationPage.model_validate(body)


async def get(call: Call[Any, Any]) -> conversations.Conversation:
    return conversations.get(call.ctx, call.path["conversationId"])


async def messages(call: Call[Any, PageQuery]) -> Page[Message]:
    page = conversations.messages(
        call.ctx, call.path["conversationId"], limit=call.query.limit, cursor=call.query.cursor
    )
    return page.map(_message)


def _message(message: conversations.Message) -> Message:
    """A stored message as the wire shows it: `content` always, even when null."""
    given = {k: v for k, v in vars(message).items() if v is not None or k == "content"}
    return Message(**given)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/conversations",
        "conversations.list",
        list_conversations,
        "List conversations, newest first.",
        query=ConversationQuery,
        response=ConversationPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/conversations/{conversationId}",
        "conversations.get",
        get,
        "One conversation.",
        response=Conversation,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/conversations/{conversationId}/messages",
        "conversations.messages",
        messages,
        "A conversation's messages, in order.",
        query=PageQuery,
        response=MessagePage,
        errors=(401, 404),
    ),
]
