"""Runs waiting at a waitpoint: a turn paused at a held tool call, the approval it waits
for, the turn's snapshot, and the decision once a reviewer made it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from ..domain.approvals import GateDecision
from ..domain.json import JSONObject
from .db import Database
from .jsoncol import Codec, dump, load
from .query import chunks, marks

_COLUMNS = (
    "token_id, run_id, approval_id, tool_id, tool_version, call_id, snapshot, created_at, "
    "decision, resolved_at"
)


class _WaitDecision(TypedDict):
    """A decision as the `decision` column keeps it: the held call's record's keys."""

    approvalId: str
    decision: str
    decidedBy: str
    rationale: NotRequired[str | None]


_DECISION = Codec(_WaitDecision)


@dataclass(frozen=True)
class Wait:
    """One waitpoint of a run: open until `resolved_at`; `decision` once decided."""

    token_id: str
    run_id: str
    approval_id: str
    tool_id: str
    tool_version: str
    call_id: str
    snapshot: JSONObject
    created_at: str
    decision: GateDecision | None = None
    resolved_at: str | None = None


def _wait(row: sqlite3.Row) -> Wait:
    return Wait(
        row["token_id"],
        row["run_id"],
        row["approval_id"],
        row["tool_id"],
        row["tool_version"],
        row["call_id"],
        _snapshot(row["snapshot"]),
        row["created_at"],
        _decision(row["decision"]),
        row["resolved_at"],
    )


def _snapshot(text: str) -> JSONObject:
    snapshot = load(text)
    if not isinstance(snapshot, dict):
        raise ValueError("a waitpoint's snapshot is a JSON object")
    return snapshot


def _decision(text: str | None) -> GateDecision | None:
    stored = _DECISION.load(text)
    if stored is None:
        return None
    return GateDecision(
        stored["approvalId"], stored["decision"], stored["decidedBy"], stored.get("rationale")
    )


def insert(db: Database, wait: Wait) -> None:
    """Keep a new waitpoint."""
    db.run(
        f"INSERT INTO run_waits ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            wait.token_id,
            wait.run_id,
            wait.approval_id,
            wait.tool_id,
            wait.tool_version,
            wait.call_id,
            dump(wait.snapshot),
            wait.created_at,
            dump(wait.decision),
            wait.resolved_at,
        ),
    )


def open_of(db: Database, run_id: str) -> Wait | None:
    """The run's waitpoint not yet resolved."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM run_waits WHERE run_id = ? AND resolved_at IS NULL",
        (run_id,),
    )
    return None if row is None else _wait(row)


def of_approval(db: Database, approval_id: str) -> Wait | None:
    """The waitpoint an approval is linked to."""
    row = db.one(f"SELECT {_COLUMNS} FROM run_waits WHERE approval_id = ?", (approval_id,))
    return None if row is None else _wait(row)


def decide(db: Database, token_id: str, decision: GateDecision) -> None:
    """Record the decision a waitpoint goes on with, as the held call's record keeps it."""
    db.run(
        "UPDATE run_waits SET decision = ? WHERE token_id = ?", (dump(decision.journal()), token_id)
    )


def relink(db: Database, token_id: str, approval_id: str) -> None:
    """The waitpoint now waits for another approval (the one its approval escalated to)."""
    db.run("UPDATE run_waits SET approval_id = ? WHERE token_id = ?", (approval_id, token_id))


def resolve(db: Database, token_id: str, at: str) -> None:
    """Close the waitpoint: the run went on (or ended)."""
    db.run("UPDATE run_waits SET resolved_at = ? WHERE token_id = ?", (at, token_id))


def decided_open(db: Database) -> list[str]:
    """Runs whose waitpoint was decided but that haven't gone on yet (a stop came between)."""
    rows = db.all("SELECT run_id FROM run_waits WHERE resolved_at IS NULL AND decision IS NOT NULL")
    return [row["run_id"] for row in rows]


def paused_among(db: Database, run_ids: Sequence[str]) -> list[str]:
    """Those of these runs that wait at an open waitpoint."""
    found: list[str] = []
    for chunk in chunks(run_ids):
        where = f"resolved_at IS NULL AND run_id IN ({marks(chunk)})"
        rows = db.all(f"SELECT run_id FROM run_waits WHERE {where}", chunk)
        found.extend(row["run_id"] for row in rows)
    return found


def erase_snapshots(db: Database, run_ids: Sequence[str]) -> None:
    """Clear the turns these runs' waitpoints kept (the messages so far, the held call's
    arguments): an erasure's, once the waits are resolved and nothing goes on from them."""
    for chunk in chunks(run_ids):
        db.run(f"UPDATE run_waits SET snapshot = '{{}}' WHERE run_id IN ({marks(chunk)})", chunk)
