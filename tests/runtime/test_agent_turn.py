"""Agent turns with the article-picker example: its function model, its tools run in-process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from example_pack import INSTRUCTIONS_0_2_0, PACKAGE, PASSWORD, REFUND, PackDispatcher

from kindgi_dev.models import Reply, ToolCall, Turn
from kindgi_dev.runtime.agent_turn import (
    TurnOutcome,
    history_messages,
    run_agent_turn,
    turn_result,
)
from kindgi_dev.runtime.providers import FunctionModels, ModelError
from kindgi_dev.runtime.tool_calls import ToolCallRecord

SEARCH = "acme-ops.search-articles"
SPEC_ORDER = {
    PASSWORD: ["kb-101", "kb-102", "kb-103"],
    REFUND: ["kb-201", "kb-203", "kb-202"],
    PACKAGE: ["kb-301", "kb-303", "kb-201"],
}


class ScriptedModel:
    """A model adapter that answers each step with the next of its scripted replies."""

    provider_id = "test"
    model = "scripted"

    def __init__(self, *replies: Reply | Callable[[Turn], Reply]) -> None:
        self.replies = list(replies)
        self.turns: list[Turn] = []

    async def next_step(self, turn: Turn) -> Reply:
        self.turns.append(turn)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(turn) if callable(reply) else reply


def run(
    agent: dict[str, Any],
    tools: dict[str, dict[str, Any]],
    model: Any,
    dispatcher: Any,
    question: str = PASSWORD,
    history: list[dict[str, Any]] | None = None,
    **options: Any,
) -> TurnOutcome:
    return asyncio.run(
        run_agent_turn(agent, tools, question, history or [], model, dispatcher, **options)
    )


def search(query: str) -> Reply:
    return Reply(tool_calls=[ToolCall(SEARCH, {"query": query}, id="call-1")])


@pytest.mark.parametrize("question", [PASSWORD, REFUND, PACKAGE])
def test_0_1_0_answers_the_spec_s_three_articles_in_order(
    question: str,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    picker_models: FunctionModels,
    dispatcher: PackDispatcher,
) -> None:
    outcome = run(picker_agent, picker_tools, picker_models.adapter(None), dispatcher, question)
    assert outcome.ok, outcome.failure
    assert [a["id"] for a in outcome.output["articles"]] == SPEC_ORDER[question]
    user, step, result, answer = outcome.appended
    assert user == {"role": "user", "content": question}
    call = step["toolCalls"][0]
    assert step["role"] == "agent" and step["content"] is None
    assert (call["toolId"], call["arguments"]) == (SEARCH, {"query": question})
    assert result["role"] == "tool"
    assert result["toolCall"] == {"toolId": SEARCH, "invocationId": call["id"]}
    assert [a["id"] for a in result["content"]["articles"][:3]] == SPEC_ORDER[question]
    assert answer == outcome.response == {"role": "agent", "content": answer["content"]}
    assert answer["content"].startswith("These articles may help: ")
    assert [(r.tool_id, r.tool_version, r.source, r.step) for r in outcome.tool_calls] == [
        (SEARCH, "0.1.0", "live", 0)
    ]
    assert outcome.usage["steps"] == 2 and outcome.usage["totalCostUsd"] == 0
    assert outcome.provider == {"id": "function", "model": "article_picker"}


@pytest.mark.parametrize(
    ("question", "query"),
    [(PASSWORD, "I forgot my password and can't sign in"), (REFUND, REFUND), (PACKAGE, PACKAGE)],
)
def test_0_2_0_keeps_only_the_right_article_and_drops_the_final_period(
    question: str,
    query: str,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    picker_models: FunctionModels,
    dispatcher: PackDispatcher,
) -> None:
    agent = {**picker_agent, "version": "0.2.0", "instructions": INSTRUCTIONS_0_2_0}
    outcome = run(agent, picker_tools, picker_models.adapter(None), dispatcher, question)
    assert [a["id"] for a in outcome.output["articles"]] == SPEC_ORDER[question][:1]
    assert outcome.tool_calls[0].arguments == {"query": query}
    assert outcome.appended[3]["content"].startswith("This article answers your question: ")


def test_turn_result_is_the_run_output_an_item_pointer_resolves_in(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    picker_models: FunctionModels,
    dispatcher: PackDispatcher,
) -> None:
    outcome = run(picker_agent, picker_tools, picker_models.adapter(None), dispatcher)
    result = turn_result(outcome, "run-1", "conv-1", 1)
    assert list(result) == [
        "runId",
        "conversationId",
        "turnNumber",
        "appended",
        "response",
        "retrieved",
        "violations",
        "usage",
        "provider",
        "output",
    ]
    assert result["appended"][3]["content"] == result["response"]["content"]
    assert result["output"]["articles"][0] == {"id": "kb-101", "title": "Reset your password"}
    assert (result["retrieved"], result["violations"]) == ([], [])


def test_an_invalid_output_is_repaired(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    model = ScriptedModel(
        Reply(text="Here.", output={"articles": [{"id": "kb-101"}]}),
        Reply(text="Here.", output={"articles": [{"id": "kb-101", "title": "Reset"}]}),
    )
    outcome = run(picker_agent, picker_tools, model, dispatcher)
    assert outcome.ok
    assert outcome.output == {"articles": [{"id": "kb-101", "title": "Reset"}]}
    assert outcome.appended == [
        {"role": "user", "content": PASSWORD},
        {"role": "agent", "content": "Here."},
    ]
    note = model.turns[1].messages[-1]
    assert note.role == "system" and "'title' is a required property" in note.content
    assert model.turns[1].question() == PASSWORD


def test_the_turn_fails_after_max_repairs(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    agent = {**picker_agent, "output": {**picker_agent["output"], "maxRepairs": 1}}
    model = ScriptedModel(Reply(text="No typed answer, sorry."))
    outcome = run(agent, picker_tools, model, dispatcher)
    assert outcome.failure is not None
    assert outcome.failure["code"] == "output-schema-violation"
    assert "after 1 repairs: the answer has no typed output" in outcome.failure["message"]
    assert outcome.usage["steps"] == 2
    assert outcome.response is None and outcome.output is None


def test_an_unknown_tool_gets_an_error_result_the_model_reads(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    model = ScriptedModel(
        Reply(tool_calls=[ToolCall("acme-ops.delete-everything", {}, id="call-x")]),
        lambda turn: Reply(text=str(turn.tool_results()[0].error), output={"articles": []}),
    )
    outcome = run(picker_agent, picker_tools, model, dispatcher)
    assert outcome.ok
    (record,) = outcome.tool_calls
    assert record.error is not None and "Unknown tool 'acme-ops.delete-everything'" in record.error
    assert record.source == "refused"
    assert outcome.appended[2]["content"] == {"error": record.error}
    assert outcome.appended[3]["content"] == record.error


def test_a_dispatcher_that_raises_gives_an_error_result(
    picker_agent: dict[str, Any], picker_tools: dict[str, dict[str, Any]]
) -> None:
    class Broken:
        async def call(self, step: int, call: ToolCall, tool: Any) -> ToolCallRecord:
            raise ConnectionError("pack service is down")

    model = ScriptedModel(search("password"), Reply(text="Sorry.", output={"articles": []}))
    outcome = run(picker_agent, picker_tools, model, Broken())
    assert outcome.ok
    assert (
        outcome.tool_calls[0].error == "The tool call failed: ConnectionError: pack service is down"
    )
    assert outcome.tool_calls[0].tool_version == "0.1.0"


def test_max_steps_bounds_the_turn(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    agent = {**picker_agent, "budget": {"maxSteps": 3}}
    outcome = run(agent, picker_tools, ScriptedModel(search("password")), dispatcher)
    assert outcome.failure == {
        "code": "budget-exceeded",
        "message": "The turn used all 3 steps (budget.maxSteps) without answering.",
        "reason": "max-steps",
    }
    assert len(outcome.tool_calls) == 3 and outcome.usage["steps"] == 3
    assert len(outcome.appended) == 1 + 3 * 2


def test_a_model_error_fails_the_turn_with_its_message(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    def fail(turn: Turn) -> Reply:
        raise ModelError("The server had an error while processing your request.")

    outcome = run(picker_agent, picker_tools, ScriptedModel(fail), dispatcher)
    assert outcome.failure == {
        "code": "model-invocation-failed",
        "message": "The server had an error while processing your request.",
    }


def test_a_slow_turn_times_out(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    class Slow(ScriptedModel):
        async def next_step(self, turn: Turn) -> Reply:
            await asyncio.sleep(5)
            return Reply(text="late")

    outcome = run(picker_agent, picker_tools, Slow(), dispatcher, timeout_s=0.05)
    assert outcome.failure is not None and outcome.failure["code"] == "budget-exceeded"
    assert "within 0.05 s" in outcome.failure["message"]
    walled = {**picker_agent, "budget": {"maxWallMs": 30}}
    outcome = run(walled, picker_tools, Slow(), dispatcher)
    assert outcome.failure is not None and "within 0.03 s" in outcome.failure["message"]


def test_a_later_turn_searches_again_and_sees_the_conversation(
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    picker_models: FunctionModels,
    dispatcher: PackDispatcher,
) -> None:
    first = run(picker_agent, picker_tools, picker_models.adapter(None), dispatcher)
    second = run(
        picker_agent, picker_tools, picker_models.adapter(None), dispatcher, PACKAGE, first.appended
    )
    assert [a["id"] for a in second.output["articles"]] == SPEC_ORDER[PACKAGE]
    assert [c.arguments["query"] for c in dispatcher.calls] == [PASSWORD, PACKAGE]


def test_history_keeps_tool_calls_and_results_only_in_pairs() -> None:
    history = [
        {"role": "tool", "content": {"x": 1}, "toolCall": {"toolId": "t", "invocationId": "gone"}},
        {"role": "user", "content": "hi"},
        {
            "role": "agent",
            "content": None,
            "toolCalls": [{"id": "c1", "toolId": "t", "arguments": {}}],
        },
        {
            "role": "tool",
            "content": {"error": "no"},
            "toolCall": {"toolId": "t", "invocationId": "c1"},
        },
        {
            "role": "agent",
            "content": None,
            "toolCalls": [{"id": "c2", "toolId": "t", "arguments": {}}],
        },
    ]
    messages = history_messages(history)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[2].error == "no" and messages[2].tool_call_id == "c1"
