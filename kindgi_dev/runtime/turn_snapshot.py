"""A paused turn as it stood when a call was held for an approval: what the model was told,
what the turn appended and called, its counters, and the calls still to make.

It is kept as JSON (in SQLite), so a turn paused before a restart is picked up after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from ..domain.json import JSON, JSONObject
from ..models import Message, Role, ToolCall
from .tool_calls import Source, ToolCallRecord


@dataclass(frozen=True)
class TurnSnapshot:
    """A paused turn; `pending[0]` is the held call, the rest the same step's calls after it."""

    messages: list[Message]
    appended: list[dict[str, Any]]
    """Untyped: as `TurnOutcome.appended`, which the replay's services read by key."""
    records: list[ToolCallRecord]
    steps: int
    prompt_tokens: int
    completion_tokens: int
    model: str | None
    repairs: int
    pending: list[ToolCall]
    elapsed_ms: int
    journaled: int = 0
    """How many of `records` the run's journal has already (written when it paused)."""

    @property
    def held(self) -> ToolCall:
        """The call that waits for the approval."""
        return self.pending[0]

    def to_json(self) -> JSONObject:
        """The snapshot as JSON."""
        return {
            "messages": [_message_json(m) for m in self.messages],
            "appended": [*self.appended],
            "records": [r.as_journal() for r in self.records],
            "steps": self.steps,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "model": self.model,
            "repairs": self.repairs,
            "pending": [_call_json(c) for c in self.pending],
            "elapsedMs": self.elapsed_ms,
            "journaled": self.journaled,
        }

    @classmethod
    def from_json(cls, data: JSONObject) -> TurnSnapshot:
        """A snapshot kept by `to_json` (`ValueError` for one it did not write)."""
        return cls(
            messages=[_message_of(m) for m in _objects(data["messages"])],
            appended=_objects(data["appended"]),
            records=[_record_of(r) for r in _objects(data["records"])],
            steps=_whole(data["steps"]),
            prompt_tokens=_whole(data["promptTokens"]),
            completion_tokens=_whole(data["completionTokens"]),
            model=_text(data.get("model")),
            repairs=_whole(data["repairs"]),
            pending=[_call_of(c) for c in _objects(data["pending"])],
            elapsed_ms=_whole(data["elapsedMs"]),
            journaled=_whole(data.get("journaled", 0)),
        )


def _whole(value: JSON) -> int:
    if not isinstance(value, int):
        raise ValueError(f"a kept turn's count isn't a whole number: {value!r}")
    return value


def _text(value: JSON) -> str | None:
    return value if isinstance(value, str) else None


def _objects(value: JSON) -> list[JSONObject]:
    if not isinstance(value, list):
        raise ValueError(f"a kept turn's list isn't a list: {value!r}")
    return [item for item in value if isinstance(item, dict)]


def _call_json(call: ToolCall) -> JSONObject:
    return {"id": call.id, "toolId": call.tool_id, "arguments": call.arguments}


def _call_of(data: JSONObject) -> ToolCall:
    arguments = data.get("arguments")
    return ToolCall(
        str(data["toolId"]),
        arguments if isinstance(arguments, dict) else {},
        id=str(data["id"]),
    )


def _message_json(message: Message) -> JSONObject:
    return {
        "role": message.role,
        "content": message.content,
        "toolCalls": [_call_json(c) for c in message.tool_calls],
        "toolCallId": message.tool_call_id,
        "toolId": message.tool_id,
        "error": message.error,
    }


def _message_of(data: JSONObject) -> Message:
    role = next((r for r in get_args(Role) if r == data["role"]), None)
    if role is None:
        raise ValueError(f"a kept message's role isn't one: {data['role']!r}")
    return Message(
        role=role,
        content=data.get("content"),
        tool_calls=tuple(_call_of(c) for c in _objects(data.get("toolCalls") or [])),
        tool_call_id=_text(data.get("toolCallId")),
        tool_id=_text(data.get("toolId")),
        error=_text(data.get("error")),
    )


def _record_of(data: JSONObject) -> ToolCallRecord:
    source = next((s for s in get_args(Source) if s == data["source"]), None)
    if source is None:
        raise ValueError(f"a kept call's source isn't one: {data['source']!r}")
    approval = data.get("approval")
    return ToolCallRecord(
        step=_whole(data["step"]),
        call_id=str(data["callId"]),
        tool_id=str(data["toolId"]),
        tool_version=str(data["toolVersion"]),
        arguments=data.get("arguments"),
        result=data.get("result"),
        error=_text(data.get("error")),
        source=source,
        reason=_text(data.get("reason")),
        approval=approval if isinstance(approval, dict) else None,
    )
