"""A run's tool calls, in order: what each asked, what came back, and where it came from.

Each is kept in the camelCase shape a turn's journal records it (`callId`, `toolId`), the
shape replays and answers read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..domain.json import JSON, JSONObject
from .db import Database, Row
from .jsoncol import dump, load
from .query import chunks, marks


def add_tool_calls(db: Database, run_id: str, calls: Sequence[Mapping[str, JSON]]) -> None:
    """Record a run's tool calls, in order."""
    add_tool_calls_of(db, [(run_id, calls)])


def add_tool_calls_of(
    db: Database, runs: Sequence[tuple[str, Sequence[Mapping[str, JSON]]]]
) -> None:
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


_COLUMNS = (
    "step, call_id, tool_id, tool_version, arguments, result, error, source, reason, approval"
)


def tool_calls(db: Database, run_id: str) -> list[JSONObject]:
    """A run's tool calls in order, as recorded."""
    rows = db.all(f"SELECT {_COLUMNS} FROM run_tool_calls WHERE run_id = ? ORDER BY seq", (run_id,))
    return [_call(r) for r in rows]


def tool_calls_of(db: Database, run_ids: Sequence[str]) -> dict[str, list[JSONObject]]:
    """Several runs' tool calls, each run's in order, by run id (a run with none is left
    out): a read of 500 runs at a time, not one a run."""
    found: dict[str, list[JSONObject]] = {}
    for chunk in chunks(run_ids):
        rows = db.all(
            f"SELECT run_id, {_COLUMNS} FROM run_tool_calls "
            f"WHERE run_id IN ({marks(chunk)}) ORDER BY run_id, seq",
            chunk,
        )
        for r in rows:
            found.setdefault(r["run_id"], []).append(_call(r))
    return found


def _call(r: Row) -> JSONObject:
    """A read tool-call row as the call it recorded."""
    call: JSONObject = {
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
    return call
