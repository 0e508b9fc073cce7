"""A conversation's wire messages as the model messages of the next turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from kindgi_dev.models import Message, ToolCall

HISTORY_LIMIT = 200


def history_messages(history: Sequence[Mapping[str, Any]]) -> list[Message]:
    """The conversation so far (its last 200 wire messages) as model messages.

    Tool calls and results are kept only in pairs, since providers refuse a result with no
    call or a call with no result (the 200-message window can cut a pair).
    """
    recent = list(history)[-HISTORY_LIMIT:]
    answered = {
        str((m.get("toolCall") or {}).get("invocationId"))
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
    wire: Mapping[str, Any], answered: set[str], asked: set[str]
) -> Message | None:
    role, content = wire.get("role"), wire.get("content")
    if role == "tool":
        ref = wire.get("toolCall") or {}
        call_id = str(ref.get("invocationId"))
        if call_id not in asked:
            return None
        error = content.get("error") if _is_error(content) else None
        result = None if error is not None else content
        return Message("tool", result, tool_call_id=call_id, tool_id=ref.get("toolId"), error=error)
    if role == "agent":
        calls = tuple(
            ToolCall(str(c.get("toolId")), dict(c.get("arguments") or {}), id=str(c.get("id")))
            for c in wire.get("toolCalls") or []
            if str(c.get("id")) in answered
        )
        asked.update(call.id for call in calls)
        if not calls and content is None:
            return None
        return Message("assistant", content, tool_calls=calls)
    if role in ("user", "system"):
        return Message(role, content)
    return None


def _is_error(content: Any) -> TypeGuard[dict[str, Any]]:
    return (
        isinstance(content, dict)
        and set(content) == {"error"}
        and isinstance(content["error"], str)
    )
