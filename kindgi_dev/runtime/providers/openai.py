"""OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio) over httpx.

A typed answer is asked for in words, not with `response_format`: the system prompt gets
`answer_format_note`, and the final message's JSON is parsed by `parse_answer`. Servers
differ in which `response_format` kinds they accept beside tools; plain JSON in the message
works on all of them, and a wrong answer goes back to the model through the turn's repairs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.models import Message, Reply, ToolCall, Turn, Usage
from kindgi_dev.runtime.providers.base import (
    ModelError,
    ToolNames,
    answer_format_note,
    count,
    member,
    parse_answer,
    post_json,
    tool_result_text,
)

if TYPE_CHECKING:
    import httpx

PROVIDER_ID = "openai"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


@dataclass
class OpenAIAdapter:
    """Asks `POST {base_url}/chat/completions` for each step of a turn."""

    model: str = DEFAULT_MODEL
    api_key: str | None = None
    base_url: str = DEFAULT_BASE_URL
    timeout_s: float = 60.0
    client: httpx.AsyncClient | None = None
    provider_id: str = PROVIDER_ID

    async def next_step(self, turn: Turn) -> Reply:
        """Send the turn as chat messages and read the reply: tool calls, or the answer."""
        names = ToolNames.for_turn(turn)
        body: JSONObject = {"model": self.model, "messages": [*_messages(turn, names)]}
        if turn.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": names.name(spec.id),
                        "description": spec.description,
                        "parameters": spec.input_schema,
                    },
                }
                for spec in turn.tools
            ]
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        answer = await post_json(self.client, url, headers, body, self.timeout_s, "OpenAI")
        return _reply(answer, names, typed=turn.output_schema is not None, fallback=self.model)


def _messages(turn: Turn, names: ToolNames) -> list[JSONObject]:
    """The turn's messages in chat-completions form, with the typed-answer note if needed."""
    wire = [_message(message, names) for message in turn.messages]
    if turn.output_schema is not None:
        leading = next((i for i, m in enumerate(wire) if m["role"] != "system"), len(wire))
        wire.insert(leading, {"role": "system", "content": answer_format_note(turn.output_schema)})
    return wire


def _message(message: Message, names: ToolNames) -> JSONObject:
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": tool_result_text(message.content, message.error),
        }
    content = message.content
    text = content if isinstance(content, str) or content is None else json.dumps(content)
    if message.role != "assistant" or not message.tool_calls:
        return {"role": message.role, "content": text or ""}
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": names.name(call.tool_id),
                    "arguments": json.dumps(call.arguments),
                },
            }
            for call in message.tool_calls
        ],
    }


def _reply(answer: JSONObject, names: ToolNames, *, typed: bool, fallback: str) -> Reply:
    """Read the first choice of a chat-completions answer."""
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelError("OpenAI answered with no choices.")
    message = member(choices[0], "message")
    asked = message.get("tool_calls")
    listed = asked if isinstance(asked, list) else []
    calls = tuple(_tool_call(raw, names) for raw in listed if isinstance(raw, dict))
    said = message.get("content")
    content = said if isinstance(said, str) else None
    usage = member(answer, "usage")
    counted = Usage(
        prompt_tokens=count(usage.get("prompt_tokens")),
        completion_tokens=count(usage.get("completion_tokens")),
    )
    named = answer.get("model")
    model = named if isinstance(named, str) else fallback
    if calls:
        return Reply(text=content or None, tool_calls=calls, usage=counted, model=model)
    text, output = parse_answer(content, typed)
    return Reply(text=text, output=output, usage=counted, model=model)


def _tool_call(raw: JSONObject, names: ToolNames) -> ToolCall:
    function = member(raw, "function")
    arguments = function.get("arguments") or "{}"
    try:
        parsed: JSON = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError as cause:
        raise ModelError(
            f"The model called {function.get('name')} with arguments that are not JSON:"
            f" {str(arguments)[:200]}"
        ) from cause
    tool_id = names.tool_id(str(function.get("name", "")))
    args: JSONObject = parsed if isinstance(parsed, dict) else {"value": parsed}
    call_id = raw.get("id")
    if isinstance(call_id, str) and call_id:
        return ToolCall(tool_id=tool_id, arguments=args, id=call_id)
    return ToolCall(tool_id=tool_id, arguments=args)
