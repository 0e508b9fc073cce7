"""A turn paused at a held call: kept as JSON, picked up again with the reviewer's decision
(approve runs the call, reject tells the model), and never held in an attended run."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from kindgi_dev.domain.approvals import GateDecision
from kindgi_dev.models import ToolCall
from kindgi_dev.runtime.agent_turn import resume_agent_turn, run_agent_turn
from kindgi_dev.runtime.approval_gate import ApprovalGate
from kindgi_dev.runtime.providers import FunctionModels
from kindgi_dev.runtime.providers.base import ModelAdapter
from kindgi_dev.runtime.tool_calls import ToolCallRecord
from kindgi_dev.runtime.turn_snapshot import TurnSnapshot

REFUND = "acme.refund"
TOOLS = {REFUND: {"id": REFUND, "version": "1.0.0", "description": "Refunds.",
                  "input": {"type": "object"}, "mutating": True,
                  "needsApprovalWhenUnattended": True}}  # fmt: skip
AGENT = {"id": "acme.desk", "version": "1.0.0", "instructions": "Refund orders."}
MODELS = """
from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def desk(turn):
    results = turn.tool_results()
    if not results:
        return Reply(tool_calls=[ToolCall("acme.refund", {"orderId": "7"})])
    return Reply(text=f"Got {results[-1].content}")
"""


class Counter:
    """A pack stand-in that counts the calls it ran."""

    def __init__(self) -> None:
        self.ran: list[ToolCall] = []

    async def call(self, step: int, call: ToolCall, tool: dict[str, Any] | None) -> ToolCallRecord:
        self.ran.append(call)
        return ToolCallRecord(step, call.id, call.tool_id, "1.0.0", call.arguments,
                              {"refundId": "rf-7"}, None, "live")  # fmt: skip


def adapter(tmp_path: Any) -> ModelAdapter:
    path = tmp_path / "models.py"
    path.write_text(MODELS)
    return FunctionModels.load(path).adapter(None)


def test_a_held_call_pauses_and_goes_on_as_decided(tmp_path: Any) -> None:
    pack = Counter()
    model = adapter(tmp_path)
    gate = ApprovalGate(pack, unattended=True)
    paused = asyncio.run(run_agent_turn(AGENT, TOOLS, "Refund order 7.", [], model, gate))
    assert paused.paused is not None and not paused.ok and pack.ran == []
    kept = TurnSnapshot.from_json(json.loads(json.dumps(paused.paused.to_json())))
    assert kept == paused.paused
    held = kept.held.id
    decided = {held: GateDecision("ap-1", "approve", "user:u-2")}
    gate = ApprovalGate(pack, unattended=True, decided=decided)
    done = asyncio.run(resume_agent_turn(AGENT, TOOLS, kept, model, gate))
    assert done.ok and [c.id for c in pack.ran] == [held]
    assert done.response == {"role": "agent", "content": "Got {'refundId': 'rf-7'}"}
    assert done.tool_calls[0].approval == {"approvalId": "ap-1", "decision": "approve",
                                           "decidedBy": "user:u-2"}  # fmt: skip
    assert [m["role"] for m in done.appended] == ["user", "agent", "tool", "agent"]

    no = {held: GateDecision("ap-1", "reject", "user:u-2", "Not eligible")}
    rejected = asyncio.run(resume_agent_turn(
        AGENT, TOOLS, kept, model, ApprovalGate(pack, unattended=True, decided=no)))  # fmt: skip
    assert len(pack.ran) == 1
    assert rejected.tool_calls[0].result == {"status": "rejected", "rationale": "Not eligible"}
    assert rejected.tool_calls[0].source == "refused"


def test_an_attended_run_does_not_wait(tmp_path: Any) -> None:
    pack = Counter()
    done = asyncio.run(run_agent_turn(AGENT, TOOLS, "Refund order 7.", [], adapter(tmp_path),
                                      ApprovalGate(pack, unattended=False)))  # fmt: skip
    assert done.ok and done.paused is None and len(pack.ran) == 1
