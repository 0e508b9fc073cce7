"""The copy of a judged run, kept at its first verdict: what a correction's test case
replays even after the run itself is erased or changed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.corrections import Subject
from ..domain.json import JSON, JSONObject
from .db import Database
from .jsoncol import Codec, dump, load
from .query import chunks, marks


def copied_among(db: Database, run_ids: Sequence[str]) -> set[str]:
    """Those of the runs whose copy was kept already: a read of 500 at a time."""
    found: set[str] = set()
    for chunk in chunks(run_ids):
        rows = db.all(
            f"SELECT run_id FROM judged_run_copies WHERE run_id IN ({marks(chunk)})", chunk
        )
        found.update(row["run_id"] for row in rows)
    return found


@dataclass(frozen=True)
class JudgedCopy:
    """A judged run's copy, kept at its first verdict: what it ran (`{kind, id, version}`),
    its input, context (history, `toolEnv`, …), output and segments, and when it was taken."""

    run_id: str
    subject: Subject
    captured_at: str
    input: JSON = None
    context: JSONObject | None = None
    output: JSON = None
    segments: JSON = None


_SUBJECT = Codec(Subject)
"""A copy's `subject` column: `{kind, id, version}`."""


def insert_copies(db: Database, copies: Sequence[JudgedCopy]) -> None:
    """Keep judged runs' copies, one statement for all, except a run's kept at an earlier
    judgment."""
    rows = [
        (
            copy.run_id,
            _SUBJECT.dump(copy.subject),
            dump(copy.input),
            dump(copy.context),
            dump(copy.output),
            dump(copy.segments),
            copy.captured_at,
        )
        for copy in copies
    ]
    with db.transaction() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO judged_run_copies "
            "(run_id, subject, input, context, output, segments, captured_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


def get_copy(db: Database, run_id: str) -> JudgedCopy | None:
    """The copy of a judged run, None when no verdict was given on it yet."""
    row = db.one(
        "SELECT run_id, subject, input, context, output, segments, captured_at "
        "FROM judged_run_copies WHERE run_id = ?",
        (run_id,),
    )
    subject = None if row is None else _SUBJECT.load(row["subject"])
    if row is None or subject is None:
        return None
    context = load(row["context"])
    return JudgedCopy(
        run_id=row["run_id"],
        subject=subject,
        captured_at=row["captured_at"],
        input=load(row["input"]),
        context=context if isinstance(context, dict) else None,
        output=load(row["output"]),
        segments=load(row["segments"]),
    )


def erase_copies(db: Database, run_ids: Sequence[str]) -> None:
    """Clear the content of the copies taken of these runs at their first verdict."""
    for chunk in chunks(run_ids):
        db.run(
            "UPDATE judged_run_copies SET input = NULL, context = NULL, output = NULL "
            f"WHERE run_id IN ({marks(chunk)})",
            chunk,
        )
