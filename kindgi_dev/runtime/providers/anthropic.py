"""Anthropic Messages (`POST {base_url}/v1/messages`) over httpx.

The leading system messages become `system`; a later one (a repair note) is sent as user
text, since Messages has no system role. A typed answer is asked for in words, as the
OpenAI adapter does (`answer_format_note`), and parsed from the final text.
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

PROVIDER_ID = "anthropic"
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MODEL = "claude-sonnet-4-5"
API_VERSION = "2023-06-01"


@dataclass
class AnthropicAdapter:
    """Asks `POST {base_url}/v1/messages` for each step of a turn."""

    model: str = DEFAULT_MODEL
    api_key: str | None = None
    base_url: str = DEFAULT_BASE_URL
    timeout_s: float = 60.0
    max_tokens: int = 4096
    client: httpx.AsyncClient | None = None
    provider_id: str = PROVIDER_ID

    async def next_step(self, turn: Turn) -> Reply:
        """Send the turn as a Messages request and read the reply: tool uses, or the answer."""
        names = ToolNames.for_turn(turn)
        system, messages = _conversation(turn, names)
        body: JSONObject = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [*messages],
        }
        if system:
            body["system"] = system
        if turn.tools:
            body["tools"] = [
                {
                    "name": names.name(spec.id),
                    "description": spec.description,
                    "input_schema": spec.input_schema,
                }
                for spec in turn.tools
            ]
        headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        url = self.base_url.rstrip("/") + "/v1/messages"
        answer = await post_json(self.client, url, headers, body, self.timeout_s, "Anthropic")
        return _reply(answer, names, typed=turn.output_schema is not None, fallback=self.model)


def _conversation(turn: Turn, names: ToolNames) -> tuple[str, list[JSONObject]]:
    """The `system` text and the alternating user/assistant messages of the turn."""
    leading = next(
        (i for i, m in enumerate(turn.messages) if m.role != "system"), len(turn.messages)
    )
    system_parts = [str(m.content) for m in turn.messages[:leading]]
    if turn.output_schema is not None:
        system_parts.append(answer_format_note(turn.output_schema))
    said: list[tuple[str, list[JSON]]] = []
    for message in turn.messages[leading:]:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message, names)
        if said and said[-1][0] == role:
            said[-1][1].extend(blocks)
        else:
            said.append((role, [*blocks]))
    messages: list[JSONObject] = [{"role": role, "content": blocks} for role, blocks in said]
    return "\n\n".join(system_parts), messages


def _blocks(message: Message, names: ToolNames) -> list[JSONObject]:
    if message.role == "tool":
        block: JSONObject = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": tool_result_text(message.content, message.error),
        }
        if message.error is not None:
            block["is_error"] = True
        return [block]
    content = message.content
    text = content if isinstance(content, str) or content is None else json.dumps(content)
    blocks: list[JSONObject] = [{"type": "text", "text": text}] if text else []
    blocks.extend(
        {
            "type": "tool_use",
            "id": call.id,
            "name": names.name(call.tool_id),
            "input": call.arguments,
        }
        for call in message.tool_calls
    )
    return blocks


def _reply(answer: JSONObject, names: ToolNames, *, typed: bool, fallback: str) -> Reply:
    """Read a Messages answer: its text blocks, its tool uses, its usage."""
    content = answer.get("content")
    if not isinstance(content, list):
        raise ModelError("Anthropic answered with no content.")
    listed = [b for b in content if isinstance(b, dict)]
    said = [b.get("text") for b in listed if b.get("type") == "text"]
    texts = [text for text in said if isinstance(text, str)]
    calls = tuple(
        ToolCall(
            tool_id=names.tool_id(str(b.get("name", ""))),
            arguments=member(b, "input"),
            id=str(b.get("id")),
        )
        for b in listed
        if b.get("type") == "tool_use"
    )
    usage = member(answer, "usage")
    counted = Usage(
        prompt_tokens=count(usage.get("input_tokens")),
        completion_tokens=count(usage.get("output_tokens")),
    )
    named = answer.get("model")
    model = named if isinstance(named, str) else fallback
    joined = "".join(texts) if texts else None
    if calls:
        return Reply(text=joined, tool_calls=calls, usage=counted, model=model)
    text, output = parse_answer(joined, typed)
    return Reply(text=text, output=output, usage=counted, model=model)
