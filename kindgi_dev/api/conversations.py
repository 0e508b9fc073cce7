"""`/v1/conversations`: opened, closed and unregistered; listed and read with their messages."""

from __future__ import annotations

from typing import Literal, cast

from pydantic import ConfigDict, Field

from ..domain.json import JSONObject
from ..domain.paging import Page
from ..services import conversations
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .routing import plain
from .wire import JsonObject, OpenJson, OpenObject, PageQuery, WireModel, WirePage


class ConversationAnswer(WireModel):
    """A conversation as the contract shapes it."""

    model_config = ConfigDict(title="Conversation")

    id: str
    tenant_id: str
    agent_id: str
    agent_version: str
    title: str
    participant_id: str | None = None
    project_id: str | None = None
    opened_by: str | None = None
    scope: OpenObject
    status: Literal["open", "closed"]
    opened_at: str
    closed_at: str | None = None
    turn_count: int
    last_message_at: str | None = None
    unregistered_at: str | None = None
    metadata: OpenObject | None = None


class OpenConversationBody(WireModel):
    """`conversations.open`: the agent version every turn runs, and the conversation's details."""

    agent_id: str = Field(min_length=1)
    agent_version: str = Field(min_length=1)
    title: str | None = None
    project_id: str | None = Field(default=None, min_length=1)
    scope: JsonObject | None = None
    participant_id: str | None = Field(default=None, min_length=1)
    metadata: JsonObject | None = None


class ConversationPage(WirePage[ConversationAnswer]):
    """A page of conversations; `openedBy: me` echoed when the list was filtered by it."""

    opened_by: Literal["me"] | None = None


class MessageAnswer(WireModel):
    """A message of a conversation; `content` and `toolCall` as the turn made them."""

    sequence: int
    role: str
    content: OpenJson
    tool_call: OpenJson = None
    actor: str | None = None
    created_at: str


class MessagePage(WirePage[MessageAnswer]):
    """A page of a conversation's messages."""


class ConversationQuery(WireModel):
    """Filters of `conversations.list`."""

    limit: int | None = None
    cursor: str | None = None
    agent_id: str | None = None
    status: Literal["open", "closed"] | None = None
    replays: Literal["exclude", "include", "only"] = "exclude"
    opened_by: Literal["me"] | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)


async def list_conversations(call: Call[NoBody, ConversationQuery]) -> ConversationPage:
    q = call.query
    filters = {
        "agent_id": q.agent_id,
        "status": q.status,
        "opened_by": conversations.principal(call.ctx) if q.opened_by == "me" else None,
        "project_id": q.scope_id if q.scope_kind == "project" else None,
    }
    page = conversations.list_page(
        call.ctx, limit=q.limit, cursor=q.cursor, filters=filters, replays=q.replays
    )
    body = cast(JSONObject, plain(page))
    if q.opened_by == "me":
        body["opened_by"] = "me"
    return ConversationPage.model_validate(body)


def open_conversation(call: Call[OpenConversationBody, NoQuery]) -> conversations.Conversation:
    body = call.body
    opening = conversations.Opening(
        body.agent_id,
        body.agent_version,
        title=body.title,
        project_id=body.project_id,
        scope=body.scope,
        participant_id=body.participant_id,
        metadata=body.metadata,
    )
    return conversations.open_conversation(call.ctx, opening)


async def get(call: Call[NoBody, NoQuery]) -> conversations.Conversation:
    return conversations.get(call.ctx, call.path["conversationId"])


def close(call: Call[NoBody, NoQuery]) -> conversations.Conversation:
    return conversations.close(call.ctx, call.path["conversationId"])


def unregister(call: Call[NoBody, NoQuery]) -> conversations.Conversation:
    return conversations.unregister(call.ctx, call.path["conversationId"])


async def messages(call: Call[NoBody, PageQuery]) -> Page[MessageAnswer]:
    page = conversations.messages(
        call.ctx, call.path["conversationId"], limit=call.query.limit, cursor=call.query.cursor
    )
    return page.map(_message)


def _message(message: conversations.Message) -> MessageAnswer:
    """A stored message as the wire shows it: `content` always, even when null."""
    given = {k: v for k, v in vars(message).items() if v is not None or k == "content"}
    return MessageAnswer(**given)


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
        "POST",
        "/v1/conversations",
        "conversations.open",
        open_conversation,
        "Open a conversation pinned to an agent version.",
        body=OpenConversationBody,
        response=ConversationAnswer,
        status=201,
        errors=(400, 401, 409, 413),
    ),
    Endpoint(
        "POST",
        "/v1/conversations/{conversationId}/close",
        "conversations.close",
        close,
        "Close a conversation: it takes no more turns.",
        response=ConversationAnswer,
        errors=(401, 404, 409),
    ),
    Endpoint(
        "POST",
        "/v1/conversations/{conversationId}/unregister",
        "conversations.unregister",
        unregister,
        "Unregister a conversation: no read, list or turn finds it again.",
        response=ConversationAnswer,
        errors=(401, 404, 409),
    ),
    Endpoint(
        "GET",
        "/v1/conversations/{conversationId}",
        "conversations.get",
        get,
        "One conversation.",
        response=ConversationAnswer,
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
