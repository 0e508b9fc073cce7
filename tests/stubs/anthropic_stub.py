"""A stub Anthropic Messages server: `POST /v1/messages` answers its scripted replies."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route

from .serve import ScriptedServer


class AnthropicStub(ScriptedServer):
    """Point an adapter's base URL at `url`; queue replies with the helpers below."""

    def serve(self) -> AnthropicStub:
        """Start serving; returns the stub."""
        self.start(Starlette(routes=[Route("/v1/messages", self.answer, methods=["POST"])]))
        return self

    def queue_text(self, text: str, *, input_tokens: int = 13, output_tokens: int = 9) -> None:
        """The model answers with `text`."""
        self.queue(
            message([{"type": "text", "text": text}], "end_turn", input_tokens, output_tokens)
        )

    def queue_tool_use(self, name: str, arguments: dict[str, Any], use_id: str) -> None:
        """The model asks for one tool use, after a few words."""
        blocks = [
            {"type": "text", "text": "Let me search the help centre."},
            {"type": "tool_use", "id": use_id, "name": name, "input": arguments},
        ]
        self.queue(message(blocks, "tool_use", 30, 12))


def message(
    content: list[dict[str, Any]], stop_reason: str, input_tokens: int, output_tokens: int
) -> dict[str, Any]:
    """A Messages answer holding `content`."""
    return {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop_reason,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }
