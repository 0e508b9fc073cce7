"""A completed replay's journal, worked out from its run and tool calls, not stored.

A replay of an eval run that completed keeps no journal rows: its journal is always the
same three kinds of entry (its start with its input, a step for each tool call, its end),
so it is read back from what its run row and tool calls keep. A replay that failed, was
cancelled or paused keeps its journal as a live run does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...runtime.tool_calls import ToolCallRecord
from ...store.runs import JournalEntry


def kept_whole(run: Mapping[str, Any]) -> bool:
    """Whether the run is an agent's replay whose journal is worked out on read (none is
    stored); a flow's replays keep theirs."""
    replay = run.get("eval_run_id") is not None and run.get("agent_id") is not None
    return replay and run.get("status") == "completed"


def journal_of(run: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> list[JournalEntry]:
    """The entries a completed replay's run would have stored, numbered from 0; every payload
    None once its content was erased (as erasure clears stored ones)."""
    ended = str(run["completed_at"])
    erased = run.get("content_erased_at") is not None
    entries = [JournalEntry("run.started", str(run["created_at"]), {"input": run["input"]})]
    entries += [
        JournalEntry("step.completed", ended, _step(call), node_id=f"tool:{call['toolId']}")
        for call in calls
    ]
    entries.append(JournalEntry("run.completed", ended, {}))
    return [
        JournalEntry(e.kind, e.timestamp, None if erased else e.payload, e.node_id, sequence=n)
        for n, e in enumerate(entries)
    ]


def _step(call: Mapping[str, Any]) -> dict[str, Any]:
    """A stored tool call as its step's payload (`ToolCallRecord.as_journal`)."""
    return ToolCallRecord(
        step=call["step"],
        call_id=call["callId"],
        tool_id=call["toolId"],
        tool_version=call["toolVersion"],
        arguments=call["arguments"],
        result=call["result"],
        error=call["error"],
        source=call["source"],
        reason=call["reason"],
        approval=call.get("approval"),
    ).as_journal()
