"""A completed replay's journal, worked out from its run and tool calls, not stored.

A replay of an eval run that completed keeps no journal rows: its journal is always the
same three kinds of entry (its start with its input, a step for each tool call, its end),
so it is read back from what its run row and tool calls keep. A replay that failed, was
cancelled or paused keeps its journal as a live run does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...domain.json import JSONObject
from ...store.runs import JournalEntry, StoredRun

_CALL = ("step", "callId", "toolId", "toolVersion", "arguments", "source")
"""What a step's payload always has of its call, in the order `ToolCallRecord.as_journal`
writes it."""


def kept_whole(run: StoredRun) -> bool:
    """Whether the run is an agent's replay whose journal is worked out on read (none is
    stored); a flow's replays keep theirs."""
    replay = run.eval_run_id is not None and run.agent_id is not None
    return replay and run.status == "completed"


def journal_of(run: StoredRun, calls: Sequence[JSONObject]) -> list[JournalEntry]:
    """The entries a completed replay's run would have stored, numbered from 0; every payload
    None once its content was erased (as erasure clears stored ones)."""
    ended = run.completed_at or run.updated_at
    erased = run.content_erased_at is not None
    entries = [JournalEntry("run.started", run.created_at, {"input": run.input})]
    entries += [
        JournalEntry("step.completed", ended, _step(call), node_id=f"tool:{call['toolId']}")
        for call in calls
    ]
    entries.append(JournalEntry("run.completed", ended, {}))
    return [
        JournalEntry(e.kind, e.timestamp, None if erased else e.payload, e.node_id, sequence=n)
        for n, e in enumerate(entries)
    ]


def _step(call: JSONObject) -> JSONObject:
    """A stored tool call as its step's payload, as `ToolCallRecord.as_journal` gives it:
    its result or else its error, and its reason and approval only when it has them."""
    step: JSONObject = {key: call.get(key) for key in _CALL}
    if call.get("error") is None:
        step["result"] = call.get("result")
    else:
        step["error"] = call["error"]
    for key in ("reason", "approval"):
        if call.get(key) is not None:
            step[key] = call[key]
    return step
