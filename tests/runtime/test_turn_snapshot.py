"""A paused turn read back from SQLite: what `to_json` wrote reads back the same, and a kept
snapshot of another shape is refused (`ValueError`), never read as a wrong count or role."""

from __future__ import annotations

import json

import pytest

from kindgi_dev.models import Message, ToolCall
from kindgi_dev.runtime.tool_calls import ToolCallRecord
from kindgi_dev.runtime.turn_snapshot import TurnSnapshot


def snapshot() -> TurnSnapshot:
    call = ToolCall("acme.refund", {"orderId": "o-1", "amount": 12.5}, id="call_1")
    record = ToolCallRecord(0, "call_0", "acme.lookup", "1.0.0", {"q": "o-1"}, {"found": True},
                            None, "live", approval={"approvalId": "ap-1"})  # fmt: skip
    return TurnSnapshot(
        messages=[
            Message("system", "Help."),
            Message("user", "Refund o-1"),
            Message("assistant", None, tool_calls=(call,)),
            Message("tool", {"found": True}, tool_call_id="call_0", tool_id="acme.lookup"),
        ],
        appended=[{"role": "user", "content": "Refund o-1"}],
        records=[record],
        steps=2,
        prompt_tokens=30,
        completion_tokens=7,
        model="picker",
        repairs=0,
        pending=[call],
        elapsed_ms=41,
        journaled=1,
    )


def test_a_kept_snapshot_reads_back_as_it_was() -> None:
    kept = json.loads(json.dumps(snapshot().to_json()))
    assert TurnSnapshot.from_json(kept) == snapshot()


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("steps", "2", "a kept turn's count isn't a whole number: '2'"),
        ("promptTokens", 30.5, "a kept turn's count isn't a whole number: 30.5"),
        ("records", {}, "a kept turn's list isn't a list: {}"),
    ],
)
def test_a_kept_snapshot_of_another_shape_is_refused(field: str, value: object, says: str) -> None:
    kept = json.loads(json.dumps(snapshot().to_json()))
    kept[field] = value
    with pytest.raises(ValueError) as refused:
        TurnSnapshot.from_json(kept)
    assert str(refused.value) == says


def test_a_kept_message_of_no_role_is_refused() -> None:
    kept = json.loads(json.dumps(snapshot().to_json()))
    kept["messages"][1]["role"] = "robot"
    with pytest.raises(ValueError) as refused:
        TurnSnapshot.from_json(kept)
    assert str(refused.value) == "a kept message's role isn't one: 'robot'"
