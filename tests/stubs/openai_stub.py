"""A stub OpenAI-compatible server: `POST /v1/chat/completions` answers its scripted replies."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route

from .serve import ScriptedServer


class OpenAIStub(ScriptedServer):
    """Point an adapter's base URL at `base_url`; queue replies with the helpers below."""

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def serve(self) -> OpenAIStub:
        """Start serving; returns the stub."""
        self.start(Starlette(routes=[Route("/v1/chat/completions", self.answer, methods=["POST"])]))
        return self

    def queue_text(
        self, content: str, *, prompt_tokens: int = 11, completion_tokens: int = 7
    ) -> None:
        """The model answers with `content`."""
        self.queue(
            completion({"role": "assistant", "content": content}, prompt_tokens, completion_tokens)
        )

    def queue_tool_call(self, name: str, arguments: dict[str, Any], call_id: str) -> None:
        """The model asks for one tool call."""
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        self.queue(completion(message, 20, 5, finish_reason="tool_calls"))


def completion(
    message: dict[str, Any],
    prompt_tokens: int,
    completion_tokens: int,
    finish_reason: str = "stop",
) -> dict[str, Any]:
    """A chat-completions answer holding `message`."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
