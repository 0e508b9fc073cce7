"""Runs: the row, its tool calls and its journal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..domain.segments import Segment
from .db import Database, Row
from .jsoncol import JsonRows, dump, load
from .query import Where

_ROWS = JsonRows("input", "output", "context", "tool_env", "segments", "block_pins")
_FIELDS = (
    "id",
    "tenant_id",
    "project_id",
    "flow_id",
    "flow_version",
    "status",
    "dry_run",
    "created_at",
    "updated_at",
    "completed_at",
    "failure_code",
    "failure_message",
    "agent_id",
    "agent_version",
    "conversation_id",
    "via",
    "input",
    "output",
    "context",
    "tool_env",
    "provider_id",
    "model",
    "segments",
    "started_by",
    "replay_of",
    "eval_run_id",
    "content_erased_at",
    "block_pins",
    "asked_model",
)
_LIST_FIELDS = ", ".join(f for f in _FIELDS if f not in ("output", "context", "tool_env"))


def segments_json(segments: Sequence[Segment] | None) -> list[dict[str, str]] | None:
    """A run's segment path as its `segments` column keeps it: `[{key, value}]`."""
    if segments is None:
        return None
    return [{"key": segment.key, "value": segment.value} for segment in segments]


def insert(db: Database, run: dict[str, Any]) -> None:
    """Add a run (every column not given is NULL)."""
    _ROWS.insert(db, "runs", [f for f in _FIELDS if f in run], [run])


def insert_many(db: Database, runs: Sequence[dict[str, Any]]) -> None:
    """Add finished runs at once (an eval run's page of replays), every column given."""
    _ROWS.insert(db, "runs", _FIELDS, runs)


def update(db: Database, run_id: str, changes: dict[str, Any]) -> None:
    """Set some columns of a run."""
    _ROWS.update(db, "runs", ("id", run_id), changes)


def get(db: Database, run_id: str) -> dict[str, Any] | None:
    """One run with everything it recorded."""
    row = db.one(f"SELECT {', '.join(_FIELDS)} FROM runs WHERE id = ?", (run_id,))
    return _ROWS.decoded(row) if row else None


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: list[Any] | None,
    filters: dict[str, Any],
    statuses: Sequence[str] = (),
    replays: str = "exclude",
    with_output: bool = False,
) -> list[dict[str, Any]]:
    """Up to `limit + 1` runs, newest first, filtered by exact column values."""
    where = Where("tenant_id = ?", tenant_id)
    bounds = {"created_after": "created_at >= ?", "created_before": "created_at <= ?"}
    for column, value in filters.items():
        if value is not None:
            where.add(bounds.get(column, f"{column} = ?"), value)
    where.one_of("status", statuses)
    if replays == "exclude" and filters.get("eval_run_id") is None:
        where.add("replay_of IS NULL")
    elif replays == "only":
        where.add("replay_of IS NOT NULL")
    where.after(after)
    fields = ", ".join(_FIELDS) if with_output else _LIST_FIELDS
    rows = db.all(
        f"SELECT {fields} FROM runs WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_ROWS.decoded(r) for r in rows]


def add_tool_calls(db: Database, run_id: str, calls: Sequence[dict[str, Any]]) -> None:
    """Record a run's tool calls, in order."""
    add_tool_calls_of(db, [(run_id, calls)])


def add_tool_calls_of(db: Database, runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> None:
    """Record the tool calls of several runs (each run's in order) in one statement."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO run_tool_calls (run_id, seq, step, call_id, tool_id, tool_version, "
            "arguments, result, error, source, reason, approval) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    seq,
                    c["step"],
                    c["callId"],
                    c["toolId"],
                    c["toolVersion"],
                    dump(c["arguments"]),
                    dump(c.get("result")),
                    c.get("error"),
                    c["source"],
                    c.get("reason"),
                    dump(c.get("approval")),
                )
                for run_id, calls in runs
                for seq, c in enumerate(calls)
            ],
        )


def tool_calls(db: Database, run_id: str) -> list[dict[str, Any]]:
    """A run's tool calls in order, as recorded."""
    rows = db.all(
        "SELECT step, call_id, tool_id, tool_version, arguments, result, error, source, reason, "
        "approval FROM run_tool_calls WHERE run_id = ? ORDER BY seq",
        (run_id,),
    )
    found = []
    for r in rows:
        call = {
            "step": r["step"],
            "callId": r["call_id"],
            "toolId": r["tool_id"],
            "toolVersion": r["tool_version"],
            "arguments": load(r["arguments"]),
            "result": load(r["result"]),
            "error": r["error"],
            "source": r["source"],
            "reason": r["reason"],
        }
        if r["approval"] is not None:
            call["approval"] = load(r["approval"])
        found.append(call)
    return found


@dataclass(frozen=True)
class JournalEntry:
    """One entry of a run's journal: what happened (`kind`), when, at which flow node, and
    its payload (kept as JSON); `sequence` is its place, given when it is stored."""

    kind: str
    timestamp: str
    payload: Any = None
    node_id: str | None = None
    sequence: int | None = None


def add_journal(db: Database, run_id: str, entries: Sequence[JournalEntry]) -> None:
    """Append entries to a run's journal, numbering them after the last one."""
    with db.transaction() as conn:
        last = conn.execute(
            "SELECT coalesce(max(sequence), -1) FROM run_journal WHERE run_id = ?", (run_id,)
        ).fetchone()[0]
        conn.executemany(
            "INSERT INTO run_journal (run_id, sequence, kind, node_id, payload, timestamp) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (run_id, last + 1 + i, e.kind, e.node_id, dump(e.payload), e.timestamp)
                for i, e in enumerate(entries)
            ],
        )


def add_new_journals(db: Database, runs: Sequence[tuple[str, Sequence[JournalEntry]]]) -> None:
    """The whole journals of runs that have none yet (numbered from 0), in one statement."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO run_journal (run_id, sequence, kind, node_id, payload, timestamp) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (run_id, i, e.kind, e.node_id, dump(e.payload), e.timestamp)
                for run_id, entries in runs
                for i, e in enumerate(entries)
            ],
        )


def journal(db: Database, run_id: str, *, since: int, limit: int | None) -> list[JournalEntry]:
    """Journal entries after `since`, in order (`limit + 1` of them when limited)."""
    rows = db.all(
        "SELECT sequence, kind, node_id, payload, timestamp FROM run_journal "
        "WHERE run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
        (run_id, since, -1 if limit is None else limit + 1),
    )
    return [
        JournalEntry(
            kind=r["kind"],
            timestamp=r["timestamp"],
            payload=load(r["payload"]),
            node_id=r["node_id"],
            sequence=r["sequence"],
        )
        for r in rows
    ]


def running(db: Database, *, eval_run_id: str | None = None) -> list[str]:
    """Ids of runs still `running` or `pending`: all of them, or one eval run's replays."""
    if eval_run_id is None:
        rows = db.all("SELECT id FROM runs WHERE status IN ('running', 'pending')")
    else:
        rows = db.all(
            "SELECT id FROM runs WHERE eval_run_id = ? AND status IN ('running', 'pending')",
            (eval_run_id,),
        )
    return [r["id"] for r in rows]


def of_conversations(db: Database, conversation_ids: Sequence[str]) -> list[str]:
    """The runs of these conversations' turns."""
    found: list[str] = []
    for start in range(0, len(conversation_ids), 500):
        chunk = list(conversation_ids[start : start + 500])
        rows = db.all(
            f"SELECT id FROM runs WHERE conversation_id IN ({', '.join('?' * len(chunk))})",
            chunk,
        )
        found.extend(r["id"] for r in rows)
    return found


def erase_content(db: Database, run_ids: Sequence[str], at: str) -> int:
    """Clear what these runs said and were told (input, output, context, journal payloads,
    tool arguments and results), keeping status, times and ids; how many runs."""
    erased = 0
    for start in range(0, len(run_ids), 500):
        chunk = list(run_ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        erased += db.run(
            "UPDATE runs SET input = 'null', output = NULL, context = NULL, tool_env = NULL, "
            f"failure_message = NULL, content_erased_at = ? WHERE id IN ({marks})",
            [at, *chunk],
        )
        db.run(f"UPDATE run_journal SET payload = NULL WHERE run_id IN ({marks})", chunk)
        db.run(
            "UPDATE run_tool_calls SET arguments = 'null', result = NULL, error = NULL "
            f"WHERE run_id IN ({marks})",
            chunk,
        )
    return erased


def failed_between(
    db: Database,
    tenant_id: str,
    project_id: str,
    start: str,
    end: str,
    *,
    agent_id: str | None = None,
    flow_id: str | None = None,
) -> list[Row]:
    """A project's failed runs that ended in [start, end]: no replays, eval runs' runs or dry
    runs; each with its subject, version, code and when it failed."""
    where = Where("tenant_id = ? AND project_id = ? AND status = 'failed'", tenant_id, project_id)
    where.add("replay_of IS NULL AND eval_run_id IS NULL AND dry_run = 0")
    where.add("coalesce(completed_at, updated_at) BETWEEN ? AND ?", start, end)
    if agent_id is not None:
        where.add("agent_id = ?", agent_id)
    if flow_id is not None:
        where.add("agent_id IS NULL AND flow_id = ?", flow_id)
    return db.all(
        "SELECT id, agent_id, agent_version, flow_id, flow_version, failure_code,"
        f" coalesce(completed_at, updated_at) AS failed_at FROM runs WHERE {where}",
        where.params,
    )


def block_pins(db: Database, run_id: str) -> dict[str, str] | None:
    """The settings block versions a run pinned (None: it recorded none, as runs before
    blocks did)."""
    row = db.one("SELECT block_pins FROM runs WHERE id = ?", (run_id,))
    pins = load(row["block_pins"]) if row else None
    return dict(pins) if isinstance(pins, dict) else None
