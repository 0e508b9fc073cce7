"""The replay dispatcher: a replayed call gets the recorded result, runs live, or is refused.

The dry-run dispatcher is its sibling: read-only calls run live, every other call is
refused and the model told why, as a replay tells it.

What each call gets is the pure policy of `domain.replay`; this carries the decision out
and keeps what the case reports (`diverged`, `refusedWrites`, `approvalSkipped`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..domain.json import JSONObject
from ..domain.replay import Reads, RecordedCall, ToolFacts, decide, dry_run_refusal
from ..models import ToolCall
from .dispatch import LiveDispatcher
from .tool_calls import ToolCallRecord, refused_record, unknown_tool_record


class ReplayDispatcher:
    """Dispatches a replay's calls against the past run's recorded calls."""

    def __init__(
        self,
        recorded: Sequence[RecordedCall],
        live: LiveDispatcher,
        *,
        reads: Reads,
        strict: bool,
        settings_differ: bool = False,
        tool_env: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        self._recorded = list(recorded)
        self._live = live
        self._reads = reads
        self._strict = strict
        self._settings_differ = settings_differ
        self._used: set[int] = set()
        self.tool_env: dict[str, dict[str, str]] = {k: dict(v) for k, v in (tool_env or {}).items()}
        self.diverged = False
        self.refused = 0
        self.approval_skipped = False

    async def call(self, step: int, call: ToolCall, tool: JSONObject | None) -> ToolCallRecord:
        """Decide by the replay policy, then answer from the record, run live, or refuse."""
        if tool is None:
            return unknown_tool_record(step, call, [])
        facts = ToolFacts.from_manifest(tool)
        decision, index = decide(
            facts,
            call.arguments,
            self._recorded,
            used=frozenset(self._used),
            reads=self._reads,
            strict=self._strict,
            settings_differ=self._settings_differ,
        )
        if index is not None:
            self._used.add(index)
        self.diverged = self.diverged or decision.diverged
        self.approval_skipped = self.approval_skipped or decision.approval_skipped
        version = str(tool.get("version", ""))
        if decision.source == "live":
            record = await self._live.call(step, call, tool)
            record.reason = decision.reason
            self.tool_env.setdefault(call.tool_id, self._live.tool_env.get(call.tool_id, {}))
            return record
        if decision.source == "refused":
            self.refused += 1
            return refused_record(step, call, version, decision.reason)
        past = decision.recorded
        assert past is not None
        followed = None if past.approval is None else {**past.approval, "followed": True}
        return ToolCallRecord(
            step,
            call.id,
            call.tool_id,
            version,
            call.arguments,
            past.result,
            past.error,
            "recorded",
            approval=followed,
        )


class DryRunDispatcher:
    """Dispatches a dry run's calls: reads that stay inside run live, the rest are refused."""

    def __init__(self, live: LiveDispatcher) -> None:
        self._live = live
        self.refused = 0

    @property
    def tool_env(self) -> dict[str, dict[str, str]]:
        """The env values each live call was sent, by tool id."""
        return self._live.tool_env

    async def call(self, step: int, call: ToolCall, tool: JSONObject | None) -> ToolCallRecord:
        """Run a read-only call live; refuse a call that changes things or reaches outside."""
        if tool is None:
            return unknown_tool_record(step, call, [])
        reason = dry_run_refusal(ToolFacts.from_manifest(tool))
        if reason is None:
            return await self._live.call(step, call, tool)
        self.refused += 1
        return refused_record(step, call, str(tool.get("version", "")), reason)
