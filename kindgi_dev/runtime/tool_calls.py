"""How an agent turn gets its tool calls carried out, and the record each call leaves.

The turn does not know whether a call runs live in the pack service, gets a recorded
result in a replay, or is refused: a `ToolDispatcher` decides, and says so in `source`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from kindgi_dev.models import ToolCall

from ..domain.json import JSON, JSONObject

Source = Literal["live", "recorded", "refused"]


@dataclass
class ToolCallRecord:
    """One tool call of a turn: what was asked, what came back, and where it came from."""

    step: int
    call_id: str
    tool_id: str
    tool_version: str
    arguments: JSON
    result: JSON
    error: str | None
    source: Source
    reason: str | None = None
    approval: JSONObject | None = None
    """The reviewer's decision the call waited for (`approvalId`, `decision`, `decidedBy`…),
    or, in a replay, the recorded decision it followed."""

    def as_journal(self) -> JSONObject:
        """The call as a run's journal and tool-call list keep it (the journal's camelCase
        payload, answered as stored), leaving out what it does not have."""
        wire: JSONObject = {
            "step": self.step,
            "callId": self.call_id,
            "toolId": self.tool_id,
            "toolVersion": self.tool_version,
            "arguments": self.arguments,
            "source": self.source,
        }
        if self.error is None:
            wire["result"] = self.result
        else:
            wire["error"] = self.error
        if self.reason is not None:
            wire["reason"] = self.reason
        if self.approval is not None:
            wire["approval"] = self.approval
        return wire


class ToolDispatcher(Protocol):
    """Carries out one tool call of a turn.

    `tool` is the manifest of the tool called, or None when the agent may not call
    `call.tool_id`: answer that with an error record (`unknown_tool_record`), never raise.
    """

    async def call(self, step: int, call: ToolCall, tool: JSONObject | None) -> ToolCallRecord:
        """Run, replay or refuse the call, and say which in the record's `source`."""
        ...


def refused_record(step: int, call: ToolCall, version: str, reason: str | None) -> ToolCallRecord:
    """The error record for a call a replay or a dry run refuses, its reason as its error."""
    return ToolCallRecord(
        step=step,
        call_id=call.id,
        tool_id=call.tool_id,
        tool_version=version,
        arguments=call.arguments,
        result=None,
        error=reason,
        source="refused",
        reason=reason,
    )


def unknown_tool_record(step: int, call: ToolCall, known: Iterable[str]) -> ToolCallRecord:
    """The error record for a call to a tool the agent does not have."""
    offered = ", ".join(sorted(known)) or "none"
    return ToolCallRecord(
        step=step,
        call_id=call.id,
        tool_id=call.tool_id,
        tool_version="",
        arguments=call.arguments,
        result=None,
        error=f"Unknown tool {call.tool_id!r}: this agent may call {offered}.",
        source="refused",
        reason="unknown-tool",
    )
