"""An agent replay's run stored before keeps what m0049 leaves out too (`store.replay_json`,
`store.runs`): its input of the user's message alone as the message, its usage as its
figures, a reply of words or of calls alone as the words or their number, and no update
time when it is its end, nor its conversation a last message time that is the run's end;
each read back the same. A finished case's row stored before keeps
its case id and outcomes by name, and reads as it did.

`runs_conversation` keeps no run id: a conversation's runs are few, ordered by time, and
the id after the time (for runs of the same millisecond) is read from the row, 36 bytes
less an entry of every run."""

from __future__ import annotations

import sqlite3
from functools import partial

from ..replay_json import (
    SAME_AS_END,
    RowParts,
    compact_input,
    compact_output,
    full_input,
    full_output,
)
from .m0046_compact_replay_runs import _calls, _dump, _load

SQL = """
DROP INDEX runs_conversation;
CREATE INDEX runs_conversation ON runs (conversation_id, created_at)
    WHERE conversation_id IS NOT NULL;
UPDATE conversations SET last_message_at = NULL WHERE replay AND turn_count > 0
    AND last_message_at = (SELECT r.completed_at FROM runs r
        WHERE r.conversation_id = conversations.id AND r.eval_run_id IS NOT NULL
        AND r.agent_id IS NOT NULL ORDER BY r.created_at, r.id LIMIT 1)
"""
"""A replay's conversation keeps no last message time when it is its replay run's end
(`store.conversations` reads it from there)."""

_BATCH = 500
"""Rows read and rewritten at once: a database of many eval runs is not read whole."""


def rewrite(conn: sqlite3.Connection) -> None:
    """Shorten every agent replay's input, output and update time kept as before."""
    after = 0
    while rows := conn.execute(
        "SELECT rowid, id, conversation_id, provider_id, model, input, output, updated_at, "
        "completed_at FROM runs WHERE rowid > ? AND eval_run_id IS NOT NULL "
        "AND agent_id IS NOT NULL ORDER BY rowid LIMIT ?",
        (after, _BATCH),
    ).fetchall():
        changed = []
        for rowid, run_id, conversation, provider, model, given, output, updated, ended in rows:
            whole_input = full_input(_load(given))
            parts = RowParts(run_id, conversation, provider, model, whole_input,
                             partial(_calls, conn, run_id))  # fmt: skip
            kept = _load(output)
            compact = isinstance(kept, dict) and "runId" not in kept  # else whole, as it was
            now = (
                _dump(compact_input(whole_input)),
                _dump(compact_output(full_output(kept, parts), parts)) if compact else output,
                SAME_AS_END if updated == ended else updated,
            )
            if now != (given, output, updated):
                changed.append((*now, rowid))
        conn.executemany(
            "UPDATE runs SET input = ?, output = ?, updated_at = ? WHERE rowid = ?", changed
        )
        after = rows[-1][0]
