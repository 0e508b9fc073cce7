"""A paused turn as it stood when a call was held for an approval: what the model was told,
what the turn appended and called, its counters, and the calls still to make.

It is kept as JSON (in SQLite), so a turn paused before a restart is picked up after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models import Message, ToolCall
from .tool_calls import ToolCallRecord


@dataclass(frozen=True)
class TurnSnapshot:
    """A paused turn; `pending[0]` is the held call, the rest the same step's calls after it."""

    messages: list[Message]
    appended: list[dict[str, Any]]
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

    def to_json(self) -> dict[str, Any]:
        """The snapshot as JSON."""
        return {
            "messages": [_message_json(m) for m in self.messages],
            "appended": self.appended,
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
    def from_json(cls, data: dict[str, Any]) -> TurnSnapshot:
        """A snapshot kept by `to_json`."""
        return cls(
            messages=[_message_of(m) for m in data["messages"]],
            appended=list(data["appended"]),
            records=[_record_of(r) for r in data["records"]],
            steps=int(data["steps"]),
            prompt_tokens=int(data["promptTokens"]),
            completion_tokens=int(data["completionTokens"]),
            model=data.get("model"),
            repairs=int(data["repairs"]),
            pending=[_call_of(c) for c in data["pending"]],
            elapsed_ms=int(data["elapsedMs"]),
            journaled=int(data.get("journaled", 0)),
        )


def _call_json(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "toolId": call.tool_id, "arguments": call.arguments}


def _call_of(data: dict[str, Any]) -> ToolCall:
    return ToolCall(str(data["toolId"]), dict(data.get("arguments") or {}), id=str(data["id"]))


def _message_json(message: Message) -> dict[str, Any]:
    return {
        "role": message.role,
        "content": message.content,
        "toolCalls": [_call_json(c) for c in message.tool_calls],
        "toolCallId": message.tool_call_id,
        "toolId": message.tool_id,
        "error": message.error,
    }


def _message_of(data: dict[str, Any]) -> Message:
    return Message(
        role=data["role"],
        content=data.get("content"),
        tool_calls=tuple(_call_of(c) for c in data.get("toolCalls") or []),
        tool_call_id=data.get("toolCallId"),
        tool_id=data.get("toolId"),
        error=data.get("error"),
    )


def _record_of(data: dict[str, Any]) -> ToolCallRecord:
    return ToolCallRecord(
        step=int(data["step"]),
        call_id=str(data["callId"]),
        tool_id=str(data["toolId"]),
        tool_version=str(data["toolVersion"]),
        arguments=data.get("arguments"),
        result=data.get("result"),
        error=data.get("error"),
        source=data["source"],
        reason=data.get("reason"),
        approval=data.get("approval"),
    )
