"""Runs: the row, its tool calls and its journal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from ..domain.failures import FailedRun
from ..domain.json import JSON, JSONObject
from ..domain.segments import Segment
from ..domain.status import TERMINAL
from .db import Database, Row
from .jsoncol import Codec, dump, load
from .query import SQLValue, Where, chunks, marks
from .replay_json import (
    SAME_AS_END,
    RowParts,
    compact_context,
    compact_input,
    compact_output,
    full_context,
    full_input,
    full_output,
    is_replay,
)
from .tool_calls import tool_calls


@dataclass(frozen=True)
class StoredRun:
    """A run as it is kept: what ran (an agent turn or a flow, at a version), for whom and
    how it was started, what it was given and answered, how it ended, and what it pinned.
    A list read without output leaves `output`, `context` and `tool_env` None."""

    id: str
    tenant_id: str
    project_id: str
    flow_id: str
    flow_version: str
    status: str
    dry_run: bool
    created_at: str
    updated_at: str
    completed_at: str | None = None
    failure_code: str | None = None
    failure_message: str | None = None
    agent_id: str | None = None
    agent_version: str | None = None
    conversation_id: str | None = None
    via: str | None = None
    input: JSON = None
    output: JSON = None
    context: JSONObject | None = None
    tool_env: JSON = None
    provider_id: str | None = None
    model: str | None = None
    segments: tuple[Segment, ...] | None = None
    started_by: str | None = None
    replay_of: str | None = None
    eval_run_id: str | None = None
    content_erased_at: str | None = None
    block_pins: dict[str, str] | None = None
    asked_model: str | None = None

    def __getitem__(self, column: str) -> object:
        """A column by name, as a `sqlite3.Row` is read (the tests read a run so); code
        reads the attributes, which mypy checks, where this gives only `object`."""
        return getattr(self, column)


class RunChanges(TypedDict, total=False):
    """Columns an update of a run sets, each to its value (a column not named stays)."""

    status: str
    updated_at: str
    completed_at: str | None
    failure_code: str | None
    failure_message: str | None
    output: JSON
    context: JSONObject | None
    tool_env: JSON
    provider_id: str | None
    model: str | None
    asked_model: str | None
    created_at: str
    content_erased_at: str | None


_JSON = frozenset(("input", "output", "context", "tool_env", "block_pins"))
"""The columns kept as JSON text (and `segments`, through `_SEGMENTS`)."""
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
_INSERT = f"INSERT INTO runs ({', '.join(_FIELDS)}) VALUES ({', '.join('?' * len(_FIELDS))})"


def _values(run: StoredRun, calls: Sequence[JSONObject] = ()) -> list[SQLValue]:
    """A run's columns in `_FIELDS`' order (the record's own), JSON ones as text; a
    replay's input, output and context compact (`replay_json`), given the tool calls
    stored with it, and its update time left out when it is its end."""
    given, output, updated = run.input, run.output, run.updated_at
    context: JSON = run.context
    if is_replay(run.eval_run_id, run.agent_id):
        parts = RowParts(run.id, run.conversation_id, run.provider_id, run.model, run.input,
                         lambda: calls)  # fmt: skip
        given = compact_input(given)
        output = compact_output(output, parts)
        context = compact_context(context)
        updated = SAME_AS_END if updated == run.completed_at else updated
    kept: dict[str, JSON] = {"input": given, "output": output, "context": context}
    values: list[SQLValue] = []
    for name in _FIELDS:
        value = getattr(run, name)
        if name == "updated_at":
            values.append(updated)
        elif name == "segments":
            values.append(_SEGMENTS.dump(value))
        elif name in _JSON:
            values.append(dump(kept.get(name, value)))
        elif isinstance(value, bool):
            values.append(1 if value else 0)
        else:
            values.append(value)
    return values


def _run(row: Row, db: Database) -> StoredRun:
    """A read row as its record (the columns a list leaves out as None), JSON loaded; a
    replay's input, output, context and update time whole again (its tool calls read when they
    are needed)."""
    found = dict(zip(row.keys(), row, strict=True))
    for name in _JSON & found.keys():
        found[name] = load(found[name])
    replay = is_replay(found["eval_run_id"], found["agent_id"])
    if replay:
        found["input"] = full_input(found["input"])
        if found["updated_at"] == SAME_AS_END:
            found["updated_at"] = found["completed_at"]
    if replay and "output" in found:
        run_id = found["id"]
        parts = RowParts(run_id, found["conversation_id"], found["provider_id"], found["model"],
                         found["input"], lambda: tool_calls(db, run_id))  # fmt: skip
        found["output"] = full_output(found["output"], parts)
        found["context"] = full_context(found["context"])
    context = found.get("context")
    found["context"] = context if isinstance(context, dict) else None
    found["segments"] = _SEGMENTS.load(row["segments"])
    found["block_pins"] = _pins(found["block_pins"])
    found["dry_run"] = bool(found["dry_run"])
    return StoredRun(**found)


def _pins(stored: JSON) -> dict[str, str] | None:
    """The block versions a run pinned (None: it recorded none, as runs before blocks did)."""
    if not isinstance(stored, dict):
        return None
    return {block: str(version) for block, version in stored.items()}


def segments_json(segments: Sequence[Segment] | None) -> JSON:
    """A run's segment path as its `segments` column keeps it: `[{key, value}]`."""
    if segments is None:
        return None
    return [{"key": segment.key, "value": segment.value} for segment in segments]


_SEGMENTS = Codec(tuple[Segment, ...])
"""A run's `segments` column: its segment path, `[{key, value}]`."""


def as_read(value: JSON) -> JSON:
    """A value of a run's JSON column as it reads back once stored (`jsoncol.dump` keeps
    what JSON can't hold repaired)."""
    return load(dump(value))


def insert(db: Database, run: StoredRun) -> None:
    """Add a run."""
    db.run(_INSERT, _values(run))


def insert_many(
    db: Database, runs: Sequence[StoredRun], calls: Sequence[Sequence[JSONObject]] = ()
) -> None:
    """Add finished runs at once (an eval run's page of replays), each with the tool calls
    stored for it (in `calls`' order; none for a run past its end)."""
    values = [_values(run, calls[n] if n < len(calls) else ()) for n, run in enumerate(runs)]
    with db.transaction() as conn:
        conn.executemany(_INSERT, values)


def update(db: Database, run_id: str, changes: RunChanges) -> None:
    """Set some columns of a run."""
    values: Mapping[str, object] = changes
    sets = [(c, dump(v) if c in _JSON else v) for c, v in values.items()]
    db.run(
        f"UPDATE runs SET {', '.join(f'{c} = ?' for c, _ in sets)} WHERE id = ?",
        [*(v for _, v in sets), run_id],
    )


def get(db: Database, run_id: str) -> StoredRun | None:
    """One run with everything it recorded."""
    row = db.one(f"SELECT {', '.join(_FIELDS)} FROM runs WHERE id = ?", (run_id,))
    return _run(row, db) if row else None


def get_many(db: Database, run_ids: Sequence[str]) -> dict[str, StoredRun]:
    """Runs with everything they recorded, by id (one not stored is left out): a read of
    500 at a time, not one a run."""
    found: dict[str, StoredRun] = {}
    for chunk in chunks(run_ids):
        rows = db.all(
            f"SELECT {', '.join(_FIELDS)} FROM runs WHERE id IN ({marks(chunk)})",
            chunk,
        )
        found.update((row["id"], _run(row, db)) for row in rows)
    return found


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    filters: Mapping[str, SQLValue],
    statuses: Sequence[str] = (),
    replays: str = "exclude",
    with_output: bool = False,
) -> list[StoredRun]:
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
    return [_run(r, db) for r in rows]


@dataclass(frozen=True)
class JournalEntry:
    """One entry of a run's journal: what happened (`kind`), when, at which flow node, and
    its payload (kept as JSON); `sequence` is its place, given when it is stored."""

    kind: str
    timestamp: str
    payload: JSON = None
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
    for chunk in chunks(conversation_ids):
        rows = db.all(
            f"SELECT id FROM runs WHERE conversation_id IN ({marks(chunk)})",
            chunk,
        )
        found.extend(r["id"] for r in rows)
    return found


def replays_of(db: Database, run_ids: Sequence[str]) -> list[tuple[str, str | None]]:
    """The runs replaying these (an eval run's or a live replay), each with its own
    conversation: a replay says what the run it replays was told."""
    found: list[tuple[str, str | None]] = []
    for chunk in chunks(run_ids):
        rows = db.all(
            f"SELECT id, conversation_id FROM runs WHERE replay_of IN ({marks(chunk)})", chunk
        )
        found.extend((r["id"], r["conversation_id"]) for r in rows)
    return found


def unfinished_among(db: Database, run_ids: Sequence[str]) -> list[str]:
    """Those of these runs that haven't ended: running, or waiting at a held call."""
    ended = sorted(TERMINAL)
    found: list[str] = []
    for chunk in chunks(run_ids):
        rows = db.all(
            f"SELECT id FROM runs WHERE status NOT IN ({marks(ended)}) AND id IN ({marks(chunk)})",
            [*ended, *chunk],
        )
        found.extend(r["id"] for r in rows)
    return found


def erase_content(db: Database, run_ids: Sequence[str], at: str) -> int:
    """Clear what these runs said and were told (input, output, context, journal payloads,
    tool arguments and results), keeping status, times and ids; how many runs."""
    erased = 0
    for chunk in chunks(run_ids):
        places = marks(chunk)
        erased += db.run(
            "UPDATE runs SET input = 'null', output = NULL, context = NULL, tool_env = NULL, "
            f"failure_message = NULL, content_erased_at = ? WHERE id IN ({places})",
            [at, *chunk],
        )
        db.run(f"UPDATE run_journal SET payload = NULL WHERE run_id IN ({places})", chunk)
        db.run(
            "UPDATE run_tool_calls SET arguments = 'null', result = NULL, error = NULL "
            f"WHERE run_id IN ({places})",
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
) -> list[FailedRun]:
    """A project's failed runs that ended in [start, end]: no replays, eval runs' runs or dry
    runs; each with its subject, version, code and when it failed."""
    where = Where("tenant_id = ? AND project_id = ? AND status = 'failed'", tenant_id, project_id)
    where.add("replay_of IS NULL AND eval_run_id IS NULL AND dry_run = 0")
    where.add("coalesce(completed_at, updated_at) BETWEEN ? AND ?", start, end)
    if agent_id is not None:
        where.add("agent_id = ?", agent_id)
    if flow_id is not None:
        where.add("agent_id IS NULL AND flow_id = ?", flow_id)
    rows = db.all(
        "SELECT id, agent_id, agent_version, flow_id, flow_version, failure_code,"
        f" coalesce(completed_at, updated_at) AS failed_at FROM runs WHERE {where}",
        where.params,
    )
    return [
        FailedRun(
            run_id=row["id"],
            subject_kind="agent" if row["agent_id"] else "flow",
            subject_id=row["agent_id"] or row["flow_id"],
            version=row["agent_version"] if row["agent_id"] else row["flow_version"],
            code=row["failure_code"],
            failed_at=row["failed_at"],
        )
        for row in rows
    ]


def block_pins(db: Database, run_id: str) -> dict[str, str] | None:
    """The settings block versions a run pinned (None: it recorded none, as runs before
    blocks did)."""
    row = db.one("SELECT block_pins FROM runs WHERE id = ?", (run_id,))
    return _pins(load(row["block_pins"])) if row else None
