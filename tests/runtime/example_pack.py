"""The article-picker example for runtime tests: its path, the spec's questions, its tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from examples_committed import example
from kindgi import Tool, ToolContext
from kindgi.pack.loader import import_pack_module, mount_pack, primitives_of

from kindgi_dev.models import ToolCall
from kindgi_dev.runtime.tool_calls import ToolCallRecord, unknown_tool_record

EXAMPLE = example("article-picker")
PASSWORD = "I forgot my password and can't sign in."
REFUND = "I was charged twice for one order. How do I get my money back?"
PACKAGE = "My package hasn't arrived yet. Where is it?"
INSTRUCTIONS_0_2_0 = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the"
    " articles that answer it, most relevant first: one is often enough."
)


class PackDispatcher:
    """Runs the example's tool handlers in this process, as its pack service would."""

    def __init__(self, pack_dir: Path, tools: dict[str, dict[str, Any]]) -> None:
        mount_pack(pack_dir)
        self.tools = tools
        self.calls: list[ToolCall] = []

    async def call(self, step: int, call: ToolCall, tool: dict[str, Any] | None) -> ToolCallRecord:
        """Run the handler live; an unknown tool or invalid input gives an error record."""
        self.calls.append(call)
        if tool is None:
            return unknown_tool_record(step, call, self.tools)
        handler = self._handler(tool)
        try:
            value = handler.parse_input(call.arguments)
            result = handler.dump_output(handler.handler(*handler.invoke_args(value, _context())))
            error = None
        except Exception as cause:
            result, error = None, f"{type(cause).__name__}: {cause}"
        return ToolCallRecord(
            step, call.id, call.tool_id, tool["version"], call.arguments, result, error, "live"
        )

    def _handler(self, tool: dict[str, Any]) -> Tool[..., Any]:
        module = import_pack_module(tool["modulePath"])
        return next(p for p in primitives_of(module) if isinstance(p, Tool) and p.id == tool["id"])


def _context() -> ToolContext:
    return ToolContext.for_test(run_id="run-test")
