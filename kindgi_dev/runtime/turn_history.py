"""A conversation's wire messages as the model messages of the next turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.models import Message, ToolCall

HISTORY_LIMIT = 200


def history_messages(history: Sequence[Mapping[str, JSON]]) -> list[Message]:
    """The conversation so far (its last 200 wire messages) as model messages.

    Tool calls and results are kept only in pairs, since providers refuse a result with no
    call or a call with no result (the 200-message window can cut a pair).
    """
    recent = list(history)[-HISTORY_LIMIT:]
    answered = {
        str(_object(m.get("toolCall")).get("invocationId"))
        for m in recent
        if m.get("role") == "tool"
    }
    asked: set[str] = set()
    messages: list[Message] = []
    for wire in recent:
        converted = _history_message(wire, answered, asked)
        if converted is not None:
            messages.append(converted)
    return messages


def _history_message(
    wire: Mapping[str, JSON], answered: set[str], asked: set[str]
) -> Message | None:
    role, content = wire.get("role"), wire.get("content")
    if role == "tool":
        ref = _object(wire.get("toolCall"))
        call_id, tool_id = str(ref.get("invocationId")), ref.get("toolId")
        if call_id not in asked:
            return None
        error = content["error"] if _is_error(content) else None
        result = None if error is not None else content
        named = tool_id if isinstance(tool_id, str) else None
        return Message("tool", result, tool_call_id=call_id, tool_id=named, error=error)
    if role == "agent":
        listed = wire.get("toolCalls")
        calls = tuple(
            ToolCall(str(c.get("toolId")), _object(c.get("arguments")), id=str(c.get("id")))
            for c in (listed if isinstance(listed, list) else [])
            if isinstance(c, dict) and str(c.get("id")) in answered
        )
        asked.update(call.id for call in calls)
        if not calls and content is None:
            return None
        return Message("assistant", content, tool_calls=calls)
    if role == "user" or role == "system":
        return Message("user" if role == "user" else "system", content)
    return None


def _is_error(content: JSON) -> TypeGuard[dict[str, str]]:
    return (
        isinstance(content, dict)
        and set(content) == {"error"}
        and isinstance(content["error"], str)
    )


def _object(value: JSON) -> JSONObject:
    return dict(value) if isinstance(value, dict) else {}
