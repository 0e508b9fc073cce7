"""Which guardrails check a turn, the trace they read, and what their checks come to."""

from __future__ import annotations

from typing import Any

import pytest
from kindgi.pack.trace import RunTrace

from kindgi_dev.domain.guardrails import Checked, Guardrail, TurnFacts, applies, sort_out, trace

LIVE = TurnFacts("run-1", "tenant-1", "project-1", "acme.helper", "conv-1", 2, "runtime")
REPLAY = TurnFacts("run-2", "tenant-1", "project-1", "acme.helper", "conv-2", 1, "ci")


def guardrail(gid: str = "acme.g", action: str = "halt", **scope: Any) -> Guardrail:
    return Guardrail.from_index(
        {"id": gid, "checkId": f"{gid}.check", "action": {"on-violation": action},
         "scope": scope or None}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "live", "replay"),
    [
        ({}, True, True),
        ({"when": "always"}, True, True),
        ({"when": "runtime-only"}, True, False),
        ({"when": "ci-only"}, False, True),
        ({"agents": ["acme.other"]}, False, False),
        ({"agents": ["acme.helper"], "tenants": ["tenant-1"]}, True, True),
        ({"tenants": ["tenant-9"]}, False, False),
        ({"flows": ["acme.flow"]}, False, False),
    ],
)
def test_a_guardrail_applies_by_its_scope(scope: dict[str, Any], live: bool, replay: bool) -> None:
    assert (applies(guardrail(**scope), LIVE), applies(guardrail(**scope), REPLAY)) == (
        live,
        replay,
    )


def test_a_check_id_defaults_to_the_guardrails_id() -> None:
    assert Guardrail.from_index({"id": "acme.g", "action": {"on-violation": "halt"}}).check == (
        "acme.g"
    )


def test_the_trace_is_a_run_trace_the_sdk_reads() -> None:
    appended = [
        {"role": "user", "content": "Refund order 7."},
        {"role": "agent", "content": None,
         "toolCalls": [{"id": "c1", "toolId": "acme.refund", "arguments": {"orderId": "7"}}]},
        {"role": "tool", "content": {"refundId": "rf-7"},
         "toolCall": {"toolId": "acme.refund", "invocationId": "c1"}},
        {"role": "agent", "content": "Refunded."},
    ]  # fmt: skip
    usage = {"steps": 2, "promptTokens": 3, "completionTokens": 4, "totalCostUsd": 0,
             "durationMs": 9}  # fmt: skip
    found = trace(
        LIVE, appended, usage, {"id": "function", "model": "desk"}, at="2026-01-01T00:00:00.000Z"
    )
    parsed = RunTrace.model_validate(found)
    assert (parsed.output, parsed.user_input, parsed.mode, parsed.turn_number) == (
        "Refunded.",
        "Refund order 7.",
        "runtime",
        2,
    )
    assert [(c.tool_id, c.arguments) for c in parsed.tool_calls] == [
        ("acme.refund", {"orderId": "7"})
    ]
    assert parsed.tool_results[0].output == {"refundId": "rf-7"}
    assert parsed.model_calls[0].prompt_tokens == 3


def test_only_a_halt_blocks_and_a_halt_that_cannot_check_blocks_too() -> None:
    halt, log, broken = guardrail("acme.a"), guardrail("acme.b", "log-only"), guardrail("acme.c")
    gate = sort_out([
        Checked(halt, {"passed": False, "reason": "Empty."}),
        Checked(log, {"passed": False, "reason": "Loud."}),
        Checked(guardrail("acme.d"), {"passed": True}),
    ])  # fmt: skip
    assert gate.halts
    assert [v["guardrailId"] for v in gate.blocking] == ["acme.a"]
    assert [v["guardrailId"] for v in gate.recorded] == ["acme.b"]
    assert gate.checks == [("acme.a", "blocked"), ("acme.b", "violated"), ("acme.d", "passed")]
    assert gate.message() == "Turn blocked by guardrail 'acme.a': Empty."
    failed = sort_out([Checked(broken, error=("check-not-in-pack", "no such check"))])
    assert failed.halts and failed.checks == [("acme.c", "errored")]
    assert failed.message() == (
        "Turn blocked: guardrail 'acme.c' couldn't run its check (check-not-in-pack: no such check)"
    )
    both = sort_out([Checked(halt, {"passed": False}), failed_check(broken)])
    assert both.message() == (
        "Turn blocked by 2 guardrails: 'acme.a'; "
        "'acme.c' couldn't run its check (check-not-in-pack: no such check)"
    )
    quiet = sort_out([Checked(log, {"passed": False}), Checked(guardrail("acme.e", "log-only"),
                                                                 error=("x", "y"))])  # fmt: skip
    assert not quiet.halts and [e["guardrailId"] for e in quiet.errors] == ["acme.e"]


def failed_check(g: Guardrail) -> Checked:
    return Checked(g, error=("check-not-in-pack", "no such check"))
