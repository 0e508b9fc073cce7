"""The Anthropic Messages adapter against a local stub that speaks the Messages API."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from example_pack import PASSWORD, PackDispatcher
from stubs.anthropic_stub import AnthropicStub

from kindgi_dev.models import Message, ToolCall, Turn
from kindgi_dev.runtime.agent_turn import run_agent_turn
from kindgi_dev.runtime.providers import ModelError
from kindgi_dev.runtime.providers.anthropic import AnthropicAdapter

SEARCH_NAME = "acme-ops_search-articles"
ANSWER = {
    "answer": "Reset your password first.",
    "output": {"articles": [{"id": "kb-101", "title": "Reset your password"}]},
}


def adapter(stub: AnthropicStub, **options: Any) -> AnthropicAdapter:
    return AnthropicAdapter(api_key="sk-ant-test", base_url=stub.url, **options)


def simple_turn(*messages: Message, schema: dict[str, Any] | None = None) -> Turn:
    chat = messages or (Message("system", "Be brief."), Message("user", "Hi"))
    return Turn("acme.a", "1.0.0", "Be brief.", chat, (), output_schema=schema)


def test_a_tool_use_round_trip_ends_in_a_typed_answer(
    anthropic_stub: AnthropicStub,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    anthropic_stub.queue_tool_use(SEARCH_NAME, {"query": PASSWORD}, "toolu_01")
    anthropic_stub.queue_text(json.dumps(ANSWER))
    outcome = asyncio.run(
        run_agent_turn(
            picker_agent, picker_tools, PASSWORD, [], adapter(anthropic_stub), dispatcher
        )
    )
    assert outcome.ok, outcome.failure
    assert outcome.output == ANSWER["output"]
    assert outcome.appended[1]["content"] == "Let me search the help centre."
    assert outcome.appended[1]["toolCalls"][0]["toolId"] == "acme-ops.search-articles"
    assert outcome.appended[3] == {"role": "agent", "content": "Reset your password first."}
    assert outcome.usage["promptTokens"] == 43 and outcome.usage["completionTokens"] == 21
    assert outcome.provider == {"id": "anthropic", "model": "claude-sonnet-4-5-20250929"}

    first, second = anthropic_stub.requests
    assert first.path == "/v1/messages"
    assert first.headers["x-api-key"] == "sk-ant-test"
    assert first.headers["anthropic-version"] == "2023-06-01"
    assert first.json["model"] == "claude-sonnet-4-5" and first.json["max_tokens"] == 4096
    assert first.json["system"].startswith(picker_agent["instructions"] + "\n\n")
    assert '"answer"' in first.json["system"]
    assert first.json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": PASSWORD}]}
    ]
    search = first.json["tools"][1]
    assert search["name"] == SEARCH_NAME
    assert search["input_schema"] == picker_tools["acme-ops.search-articles"]["input"]

    _, asked, answered = second.json["messages"]
    assert asked["role"] == "assistant"
    assert asked["content"][1] == {
        "type": "tool_use",
        "id": "toolu_01",
        "name": SEARCH_NAME,
        "input": {"query": PASSWORD},
    }
    (result,) = answered["content"]
    assert (answered["role"], result["type"], result["tool_use_id"]) == (
        "user",
        "tool_result",
        "toolu_01",
    )
    assert json.loads(result["content"]) == outcome.tool_calls[0].result


def test_an_error_result_is_marked_and_later_system_notes_are_user_text(
    anthropic_stub: AnthropicStub,
) -> None:
    anthropic_stub.queue_text("ok")
    call = ToolCall("acme.x", {"a": 1}, id="toolu_9")
    turn = simple_turn(
        Message("system", "Be brief."),
        Message("user", "Hi"),
        Message("assistant", None, tool_calls=(call,)),
        Message("tool", None, tool_call_id="toolu_9", tool_id="acme.x", error="no such row"),
        Message("system", "Answer again."),
    )
    asyncio.run(adapter(anthropic_stub).next_step(turn))
    sent = anthropic_stub.requests[0].json
    assert sent["system"] == "Be brief."
    assert sent["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_9",
                "content": '{"error": "no such row"}',
                "is_error": True,
            },
            {"type": "text", "text": "Answer again."},
        ],
    }


def test_a_typed_answer_is_parsed_from_the_text(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.queue_text(json.dumps(ANSWER), input_tokens=5, output_tokens=4)
    reply = asyncio.run(adapter(anthropic_stub).next_step(simple_turn(schema={"type": "object"})))
    assert (reply.text, reply.output) == (ANSWER["answer"], ANSWER["output"])
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (5, 4)
    assert "tools" not in anthropic_stub.requests[0].json


def test_a_500_is_a_model_error_with_the_provider_s_message(anthropic_stub: AnthropicStub) -> None:
    error = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}
    anthropic_stub.queue(error, status=500)
    with pytest.raises(ModelError) as raised:
        asyncio.run(adapter(anthropic_stub).next_step(simple_turn()))
    assert (raised.value.message, raised.value.status) == ("Internal server error", 500)


def test_an_overloaded_provider_fails_the_turn_with_its_message(
    anthropic_stub: AnthropicStub,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    anthropic_stub.queue(error, status=529)
    outcome = asyncio.run(
        run_agent_turn(
            picker_agent, picker_tools, PASSWORD, [], adapter(anthropic_stub), dispatcher
        )
    )
    assert outcome.failure == {"code": "model-invocation-failed", "message": "Overloaded"}
    assert outcome.provider["id"] == "anthropic"


def test_a_timeout_is_a_model_error(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.queue({"content": []}, delay_s=1)
    with pytest.raises(ModelError, match=r"Anthropic did not answer within 0\.2 s"):
        asyncio.run(adapter(anthropic_stub, timeout_s=0.2).next_step(simple_turn()))


def test_an_unreachable_server_is_a_model_error() -> None:
    unreachable = AnthropicAdapter(api_key="k", base_url="http://127.0.0.1:9", timeout_s=2)
    with pytest.raises(ModelError, match="could not be reached"):
        asyncio.run(unreachable.next_step(simple_turn()))
