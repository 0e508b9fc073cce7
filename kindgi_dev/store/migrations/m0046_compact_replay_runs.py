"""An agent replay's run stored before keeps its output and context compact, as a replay's
run is stored from now on (`store.replay_json`): without what its own row and tool calls
hold, read back the same (a row with a part that would not is left whole, and a stored
output with its `runId` is read as it is), and its messages without the words its output
has, nor their run. The runs' and conversations' order indexes become ascending."""

from __future__ import annotations

import json
import sqlite3
from functools import partial

from ...domain.json import JSON, JSONObject
from ..replay_json import (
    RowParts,
    compact_context,
    compact_output,
    full_input,
    full_output,
    kept_as_is,
    same_json,
)

SQL = """
DROP INDEX runs_order;
CREATE INDEX runs_order ON runs (created_at, id);
DROP INDEX runs_agent;
CREATE INDEX runs_agent ON runs (agent_id, created_at);
DROP INDEX conversations_order;
CREATE INDEX conversations_order ON conversations (opened_at, id);
"""
"""The indexes every replay adds a row to, ascending: a descending index grows at its left
end, which leaves half of each of its pages empty (m0021 made the verdicts' ascending for
that); a list newest first walks them backwards."""

_BATCH = 500
"""Rows read and rewritten at once: a database of many eval runs is not read whole."""


def rewrite(conn: sqlite3.Connection) -> None:
    """Compact every agent replay's output and context that is still whole."""
    after = 0
    while rows := conn.execute(
        "SELECT rowid, id, conversation_id, provider_id, model, input, output, context "
        "FROM runs WHERE rowid > ? AND eval_run_id IS NOT NULL AND agent_id IS NOT NULL "
        "ORDER BY rowid LIMIT ?",
        (after, _BATCH),
    ).fetchall():
        changed = []
        for rowid, run_id, conversation_id, provider_id, model, given, output, context in rows:
            whole_output, whole_context = _load(output), _load(context)
            parts = RowParts(run_id, conversation_id, provider_id, model, full_input(_load(given)),
                             partial(_calls, conn, run_id))  # fmt: skip
            kept_output = compact_output(whole_output, parts)
            kept_context = compact_context(whole_context)
            if kept_output is not whole_output or kept_context is not whole_context:
                changed.append((_dump(kept_output), _dump(kept_context), rowid))
            if conversation_id is not None:
                _unsay(conn, conversation_id, run_id, full_output(whole_output, parts))
        conn.executemany("UPDATE runs SET output = ?, context = ? WHERE rowid = ?", changed)
        after = rows[-1][0]


def _unsay(conn: sqlite3.Connection, conversation_id: str, run_id: str, output: JSON) -> None:
    """Leave out the words (and run) of the replay's messages that are its output's appended
    ones (as `conversations.insert_turns` keeps them now), in its own conversation only."""
    appended = output.get("appended") if isinstance(output, dict) else None
    replay = conn.execute(
        "SELECT replay FROM conversations WHERE id = ?", (conversation_id,)
    ).fetchone()
    if not isinstance(appended, list) or not replay or not replay[0]:
        return
    said = conn.execute(
        "SELECT sequence, content, tool_call FROM conversation_messages "
        "WHERE conversation_id = ? AND run_id = ?",
        (conversation_id, run_id),
    ).fetchall()
    unsaid = [
        (conversation_id, sequence)
        for sequence, content, tool_call in said
        if sequence < len(appended) and _says(appended[sequence], _load(content), _load(tool_call))
    ]
    conn.executemany(
        "UPDATE conversation_messages SET content = NULL, tool_call = NULL, run_id = NULL "
        "WHERE conversation_id = ? AND sequence = ?",
        unsaid,
    )


def _says(message: JSON, content: JSON, tool_call: JSON) -> bool:
    """Whether an appended message has these words, kept as they are."""
    if not isinstance(message, dict):
        return False
    said, called = message.get("content"), message.get("toolCall") or None
    return (
        same_json(said, content)
        and same_json(called, tool_call)
        and kept_as_is(said)
        and kept_as_is(called)
    )


def _calls(conn: sqlite3.Connection, run_id: str) -> list[JSONObject]:
    """A run's stored tool calls, as `tool_calls.tool_calls` reads them for its output."""
    rows = conn.execute(
        "SELECT call_id, tool_id, arguments, result, error FROM run_tool_calls "
        "WHERE run_id = ? ORDER BY seq",
        (run_id,),
    ).fetchall()
    return [
        {"callId": call_id, "toolId": tool_id, "arguments": _load(arguments),
         "result": _load(result), "error": error}
        for call_id, tool_id, arguments, result, error in rows
    ]  # fmt: skip


def _load(text: str | None) -> JSON:
    found: JSON = None if text is None else json.loads(text)
    return found


def _dump(value: JSON) -> str | None:
    """As `jsoncol.dump` writes a value that reached the store once already."""
    if value is None:
        return None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
