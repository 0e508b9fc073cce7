"""The live dispatcher: a turn's tool calls run in the pack service, with the run's context."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from ..domain.json import JSON, JSONObject
from ..models import ToolCall
from .tool_calls import ToolCallRecord, unknown_tool_record

if TYPE_CHECKING:
    from .pack_service import InvokeOutcome

Invoke = Callable[..., Awaitable["InvokeOutcome"]]
Builtin = Callable[[int, ToolCall, JSONObject], Awaitable[ToolCallRecord]]
"""A built-in tool (`kindgi_<verb>`) the runtime carries out itself, not the pack service."""


def tool_env(tool: Mapping[str, JSON], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The env values a tool is sent: the names its `needsSpec.env` declares, as set now."""
    source = os.environ if environ is None else environ
    needs = tool.get("needsSpec")
    names = needs.get("env") if isinstance(needs, dict) else None
    wanted = [
        n if isinstance(n, str) else str(n.get("name", "")) if isinstance(n, dict) else ""
        for n in (names if isinstance(names, list) else [])
    ]
    return {name: source[name] for name in wanted if name and name in source}


class LiveDispatcher:
    """Runs each call in the pack service and records it with `source: live`; `settings` are
    the settings blocks the agent version pins, sent as the tool's `ctx.settings`."""

    def __init__(
        self,
        invoke: Invoke,
        *,
        tenant_id: str,
        project_id: str,
        run_id: str,
        env_of: Callable[[Mapping[str, JSON]], dict[str, str]] = tool_env,
        timeout_ms: int = 60_000,
        builtins: Mapping[str, Builtin] | None = None,
        settings: Mapping[str, Mapping[str, JSON]] | None = None,
    ) -> None:
        self._invoke = invoke
        self._builtins = dict(builtins or {})
        self._settings = {k: dict(v) for k, v in (settings or {}).items()}
        self._tenant_id = tenant_id
        self._project_id = project_id
        self._run_id = run_id
        self._env_of = env_of
        self._timeout_ms = timeout_ms
        self.tool_env: dict[str, dict[str, str]] = {}

    async def call(self, step: int, call: ToolCall, tool: JSONObject | None) -> ToolCallRecord:
        """Invoke the tool; an error outcome goes back to the model as an error result."""
        if tool is None:
            return unknown_tool_record(step, call, [])
        builtin = self._builtins.get(call.tool_id)
        if builtin is not None:
            return await builtin(step, call, tool)
        version = str(tool.get("version", ""))
        env = self._env_of(tool)
        self.tool_env[call.tool_id] = env
        try:
            outcome = await self._invoke(
                call.tool_id,
                version,
                call.arguments,
                tenant_id=self._tenant_id,
                project_id=self._project_id,
                run_id=self._run_id,
                request_id=call.id,
                env=env,
                timeout_ms=self._timeout_ms,
                **({"settings": self._settings} if self._settings else {}),
            )
        except Exception as error:  # no pack service: the model is told, the run goes on
            message = getattr(error, "message", None) or str(error)
            result: JSON = None
            failed: str | None = f"pack-service-unavailable: {message}"
        else:
            result = outcome.output if outcome.ok else None
            failed = None if outcome.ok else f"{outcome.code}: {outcome.message}"
        return ToolCallRecord(
            step, call.id, call.tool_id, version, call.arguments, result, failed, "live"
        )
