"""The approval gate of a live turn: a call of a tool that needs a person's yes when no
person started the run (`needsApprovalWhenUnattended`) is held until a reviewer decides.

Holding a call ends the turn for now (`HeldCall`); the turn is picked up again with the
decision, and the gate then runs the call (approve) or answers the model that a reviewer
rejected it (reject), as a deployed runtime does. Attended runs and reads pass straight on.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..domain.approvals import GateDecision
from ..domain.json import JSON, JSONObject
from ..domain.replay import ToolFacts
from ..models import ToolCall
from .tool_calls import ToolCallRecord, ToolDispatcher

REJECTED = "a reviewer rejected this call"


class HeldCall(Exception):
    """A call waits for an approval: the turn pauses before it runs."""

    def __init__(self, call: ToolCall, tool: JSONObject) -> None:
        super().__init__(f"{call.tool_id} waits for an approval")
        self.call = call
        self.tool = tool


def needs_approval(tool: Mapping[str, JSON]) -> bool:
    """Whether every call of the tool waits for a person in an unattended run."""
    return ToolFacts.from_manifest(dict(tool)).needs_approval


class ApprovalGate:
    """Holds the calls that need an approval in an unattended run; passes the rest on."""

    def __init__(
        self,
        inner: ToolDispatcher,
        *,
        unattended: bool,
        decided: Mapping[str, GateDecision] | None = None,
    ) -> None:
        self._inner = inner
        self._unattended = unattended
        self._decided = dict(decided or {})

    @property
    def tool_env(self) -> dict[str, dict[str, str]]:
        """The env values each live call was sent, by tool id."""
        env: dict[str, dict[str, str]] = getattr(self._inner, "tool_env", {})
        return env

    async def call(self, step: int, call: ToolCall, tool: JSONObject | None) -> ToolCallRecord:
        """Hold, run (approved) or answer (rejected) a gated call; run any other one."""
        if tool is None or not self._unattended or not needs_approval(tool):
            return await self._inner.call(step, call, tool)
        decided = self._decided.get(call.id)
        if decided is None:
            raise HeldCall(call, tool)
        if decided.decision == "approve":
            record = await self._inner.call(step, call, tool)
            record.approval = decided.journal()
            return record
        answer: JSONObject = {"status": "rejected"}
        if decided.rationale is not None:
            answer["rationale"] = decided.rationale
        return ToolCallRecord(
            step,
            call.id,
            call.tool_id,
            str(tool.get("version", "")),
            call.arguments,
            answer,
            None,
            "refused",
            REJECTED,
            approval=decided.journal(),
        )
