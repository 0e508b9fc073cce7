"""The OpenAI-compatible adapter against a local stub that speaks chat completions."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from example_pack import PASSWORD, PackDispatcher
from stubs.openai_stub import OpenAIStub

from kindgi_dev.models import Message, Turn
from kindgi_dev.runtime.agent_turn import run_agent_turn
from kindgi_dev.runtime.providers import ModelError
from kindgi_dev.runtime.providers.base import ToolNames
from kindgi_dev.runtime.providers.openai import OpenAIAdapter

SEARCH_NAME = "acme-ops_search-articles"
ANSWER = {
    "answer": "Reset your password first.",
    "output": {"articles": [{"id": "kb-101", "title": "Reset your password"}]},
}


def adapter(stub: OpenAIStub, **options: Any) -> OpenAIAdapter:
    return OpenAIAdapter(model="gpt-4o-mini", api_key="sk-test", base_url=stub.base_url, **options)


def simple_turn(schema: dict[str, Any] | None = None) -> Turn:
    messages = (Message("system", "Be brief."), Message("user", "Hi"))
    return Turn("acme.a", "1.0.0", "Be brief.", messages, (), output_schema=schema)


def test_a_tool_call_round_trip_ends_in_a_typed_answer(
    openai_stub: OpenAIStub,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    openai_stub.queue_tool_call(SEARCH_NAME, {"query": PASSWORD}, "call_abc")
    openai_stub.queue_text(json.dumps(ANSWER))
    outcome = asyncio.run(
        run_agent_turn(picker_agent, picker_tools, PASSWORD, [], adapter(openai_stub), dispatcher)
    )
    assert outcome.ok, outcome.failure
    assert outcome.output == ANSWER["output"]
    assert outcome.appended[3] == {"role": "agent", "content": "Reset your password first."}
    assert outcome.appended[1]["toolCalls"] == [
        {"id": "call_abc", "toolId": "acme-ops.search-articles", "arguments": {"query": PASSWORD}}
    ]
    assert outcome.tool_calls[0].tool_id == "acme-ops.search-articles"
    assert outcome.usage["promptTokens"] == 31 and outcome.usage["completionTokens"] == 12
    assert outcome.provider == {"id": "openai", "model": "gpt-4o-mini-2024-07-18"}

    first, second = openai_stub.requests
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer sk-test"
    assert first.json["model"] == "gpt-4o-mini"
    roles = [m["role"] for m in first.json["messages"]]
    assert roles == ["system", "system", "user"]
    assert first.json["messages"][0]["content"] == picker_agent["instructions"]
    assert '"answer"' in first.json["messages"][1]["content"]
    names = [t["function"]["name"] for t in first.json["tools"]]
    assert names == ["acme-ops_log-suggestion", SEARCH_NAME]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in names)
    assert (
        first.json["tools"][1]["function"]["parameters"]
        == picker_tools["acme-ops.search-articles"]["input"]
    )

    asked, result = second.json["messages"][-2:]
    assert asked["tool_calls"][0]["id"] == "call_abc"
    assert asked["tool_calls"][0]["function"]["name"] == SEARCH_NAME
    assert result["role"] == "tool" and result["tool_call_id"] == "call_abc"
    assert json.loads(result["content"]) == outcome.tool_calls[0].result


def test_an_answer_that_is_not_json_is_repaired(
    openai_stub: OpenAIStub,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    openai_stub.queue_text("Try resetting your password.")
    openai_stub.queue_text("```json\n" + json.dumps(ANSWER) + "\n```")
    outcome = asyncio.run(
        run_agent_turn(picker_agent, picker_tools, PASSWORD, [], adapter(openai_stub), dispatcher)
    )
    assert outcome.ok and outcome.output == ANSWER["output"]
    repair = openai_stub.requests[1].json["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Try resetting your password."}
    assert repair[-1]["role"] == "system" and "no typed output" in repair[-1]["content"]


def test_a_bare_json_value_is_the_typed_output(openai_stub: OpenAIStub) -> None:
    openai_stub.queue_text(json.dumps({"articles": []}))
    reply = asyncio.run(adapter(openai_stub).next_step(simple_turn({"type": "object"})))
    assert (reply.text, reply.output) == (None, {"articles": []})


def test_without_a_schema_the_answer_is_text(openai_stub: OpenAIStub) -> None:
    openai_stub.queue_text('{"looks": "like json"}', prompt_tokens=3, completion_tokens=2)
    reply = asyncio.run(adapter(openai_stub).next_step(simple_turn()))
    assert (reply.text, reply.output) == ('{"looks": "like json"}', None)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (3, 2)
    assert "tools" not in openai_stub.requests[0].json


def test_a_500_is_a_model_error_with_the_provider_s_message(openai_stub: OpenAIStub) -> None:
    message = "The server had an error while processing your request."
    openai_stub.queue({"error": {"message": message, "type": "server_error"}}, status=500)
    with pytest.raises(ModelError) as raised:
        asyncio.run(adapter(openai_stub).next_step(simple_turn()))
    assert (raised.value.message, raised.value.status) == (message, 500)


def test_a_500_fails_the_turn_with_that_message(
    openai_stub: OpenAIStub,
    picker_agent: dict[str, Any],
    picker_tools: dict[str, dict[str, Any]],
    dispatcher: PackDispatcher,
) -> None:
    openai_stub.queue({"error": {"message": "The server had an error"}}, status=500)
    outcome = asyncio.run(
        run_agent_turn(picker_agent, picker_tools, PASSWORD, [], adapter(openai_stub), dispatcher)
    )
    assert outcome.failure == {
        "code": "model-invocation-failed",
        "message": "The server had an error",
    }


def test_an_error_body_without_a_message_names_the_status(openai_stub: OpenAIStub) -> None:
    openai_stub.queue(["not", "an", "error", "object"], status=502)
    with pytest.raises(ModelError, match="HTTP 502"):
        asyncio.run(adapter(openai_stub).next_step(simple_turn()))


def test_a_timeout_is_a_model_error(openai_stub: OpenAIStub) -> None:
    openai_stub.queue({"choices": []}, delay_s=1)
    with pytest.raises(ModelError, match=r"did not answer within 0\.2 s"):
        asyncio.run(adapter(openai_stub, timeout_s=0.2).next_step(simple_turn()))


def test_arguments_that_are_not_json_are_a_model_error(openai_stub: OpenAIStub) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{oops"}}
    openai_stub.queue({"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]})
    with pytest.raises(ModelError, match="not JSON"):
        asyncio.run(adapter(openai_stub).next_step(simple_turn()))


def test_tool_names_are_valid_unique_and_map_back() -> None:
    long_id = "acme." + "very-long-name." * 6
    ids = ["acme-ops.search-articles", "acme-ops_search-articles", long_id, "plain_name"]
    names = ToolNames(ids)
    mapped = [names.name(tool_id) for tool_id in ids]
    assert len(set(mapped)) == 4
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) for name in mapped)
    assert [names.tool_id(name) for name in mapped] == ids
    assert names.name("plain_name") == "plain_name"
    assert names.tool_id("unknown") == "unknown"
