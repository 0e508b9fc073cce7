"""Eval suites: their versions, a built suite's frozen cases, and the reads over judged runs
that building one needs (verdicts, corrections, run copies, class weights).

A counted verdict is a live one (not unregistered, not superseded) of a correction that
was neither replaced nor removed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .db import Database
from .ids import unpacked
from .jsoncol import dump, load

_COUNTED = (
    "v.unregistered_at IS NULL AND v.superseded_by IS NULL "
    "AND c.replaced_by IS NULL AND c.status != 'removed'"
)
_VERSION_FIELDS = (
    "id, version, tenant_id, project_id, kind, description, spec, case_count, created_at, "
    "unregistered_at"
)


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" * len(values))


def _version(row: sqlite3.Row) -> dict[str, Any]:
    found = dict(row)
    found["spec"] = load(found["spec"])
    return found


def insert_version(db: Database, suite: dict[str, Any]) -> bool:
    """Store a suite version; False (and nothing written) when the version is taken."""
    try:
        db.run(
            f"INSERT INTO eval_suites ({_VERSION_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (
                suite["id"],
                suite["version"],
                suite["tenant_id"],
                suite.get("project_id"),
                suite["kind"],
                suite.get("description"),
                dump(suite["spec"]),
                suite.get("case_count", 0),
                suite["created_at"],
            ),
        )
    except sqlite3.IntegrityError:
        return False
    return True


def insert_cases(
    db: Database, suite_id: str, version: str, cases: Sequence[dict[str, Any]]
) -> None:
    """Store a built version's cases, in the order given."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO eval_suite_cases (suite_id, version, seq, case_id, body) "
            "VALUES (?, ?, ?, ?, ?)",
            [(suite_id, version, i, c["caseId"], dump(c)) for i, c in enumerate(cases)],
        )


def get_version(db: Database, suite_id: str, version: str) -> dict[str, Any] | None:
    """One version of a suite, unregistered or not."""
    row = db.one(
        f"SELECT {_VERSION_FIELDS} FROM eval_suites WHERE id = ? AND version = ?",
        (suite_id, version),
    )
    return _version(row) if row else None


def versions_of(db: Database, tenant_id: str, suite_id: str) -> list[dict[str, Any]]:
    """Every version of one suite, in no particular order."""
    rows = db.all(
        f"SELECT {_VERSION_FIELDS} FROM eval_suites WHERE tenant_id = ? AND id = ?",
        (tenant_id, suite_id),
    )
    return [_version(r) for r in rows]


def all_versions(db: Database, tenant_id: str) -> list[dict[str, Any]]:
    """Every version of every suite of a tenant."""
    rows = db.all(f"SELECT {_VERSION_FIELDS} FROM eval_suites WHERE tenant_id = ?", (tenant_id,))
    return [_version(r) for r in rows]


def set_unregistered(db: Database, suite_id: str, version: str, at: str | None) -> None:
    """Tombstone a version (a time) or reinstate it (None)."""
    db.run(
        "UPDATE eval_suites SET unregistered_at = ? WHERE id = ? AND version = ?",
        (at, suite_id, version),
    )


def case_page(
    db: Database, suite_id: str, version: str, *, after: int, limit: int
) -> list[tuple[int, Any]]:
    """Up to `limit` (seq, case) of a built version after a position, in stored order."""
    rows = db.all(
        "SELECT seq, body FROM eval_suite_cases WHERE suite_id = ? AND version = ? AND seq > ? "
        "ORDER BY seq LIMIT ?",
        (suite_id, version, after, limit),
    )
    return [(r["seq"], load(r["body"])) for r in rows]


def judged_runs(
    db: Database,
    tenant_id: str,
    project_id: str,
    subject: tuple[str, str],
    class_ids: Sequence[str],
) -> list[dict[str, Any]]:
    """Each non-replay judged run of a subject in a project: first judgment, counted verdicts,
    segments (the copy's, else the run's) and the version it ran."""
    sql = (
        "SELECT c.run_id, r.agent_version, coalesce(j.segments, r.segments) AS segments, "
        "(SELECT min(a.created_at) FROM corrections b JOIN verdicts a ON a.correction_seq = b.seq "
        "WHERE b.run_id = c.run_id) AS first_judged_at, count(*) AS judgments "
        "FROM verdicts v JOIN corrections c ON c.seq = v.correction_seq "
        "JOIN runs r ON r.id = c.run_id LEFT JOIN judged_run_copies j ON j.run_id = c.run_id "
        "WHERE c.tenant_id = ? AND c.project_id = ? AND c.subject_kind = ? AND c.subject_id = ? "
        f"AND r.replay_of IS NULL AND {_COUNTED}"
    )
    params: list[Any] = [tenant_id, project_id, *subject]
    if class_ids:
        sql += f" AND v.judge_class_id IN ({_marks(class_ids)})"
        params.extend(class_ids)
    rows = db.all(sql + " GROUP BY c.run_id", params)
    return [{**dict(r), "segments": load(r["segments"])} for r in rows]


def counted_verdicts(
    db: Database, run_ids: Sequence[str], class_ids: Sequence[str]
) -> list[dict[str, Any]]:
    """The counted verdicts of some runs, newest first."""
    found: list[dict[str, Any]] = []
    ids = list(run_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        sql = (
            "SELECT v.id, c.run_id, v.item_key, v.pointer, v.rank, v.verdict, v.reason, "
            "v.judge_class_id, v.restricted, v.created_at FROM corrections c "
            "JOIN verdicts v ON v.correction_seq = c.seq "
            f"WHERE c.run_id IN ({_marks(chunk)}) AND {_COUNTED}"
        )
        params: list[Any] = list(chunk)
        if class_ids:
            sql += f" AND v.judge_class_id IN ({_marks(class_ids)})"
            params.extend(class_ids)
        found.extend({**dict(r), "id": unpacked(r["id"])} for r in db.all(sql, params))
    found.sort(key=lambda v: (v["created_at"], v["id"]), reverse=True)
    return found


def decision_corrections(db: Database, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The standing corrections of some runs that say what the run should have done."""
    found: list[dict[str, Any]] = []
    ids = list(run_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.all(
            "SELECT id, run_id, decisions, judge_class_id, restricted, created_at "
            f"FROM corrections WHERE run_id IN ({_marks(chunk)}) AND decisions IS NOT NULL "
            "AND replaced_by IS NULL AND status != 'removed' ORDER BY created_at DESC, id DESC",
            chunk,
        )
        found.extend({**dict(r), "decisions": load(r["decisions"])} for r in rows)
    return found


def class_weights(db: Database, tenant_id: str) -> dict[str, float]:
    """Every judge class's current weight."""
    rows = db.all("SELECT id, weight FROM judge_classes WHERE tenant_id = ?", (tenant_id,))
    return {r["id"]: float(r["weight"]) for r in rows}


def run_copies(db: Database, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each run's copy taken at its first judgment (None fields where none was taken),
    beside the run's own record, by run id."""
    found: dict[str, dict[str, Any]] = {}
    ids = list(run_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.all(
            "SELECT r.id, r.agent_id, r.agent_version, r.flow_id, r.flow_version, r.input, "
            "r.output, r.context, r.tool_env, r.content_erased_at, j.subject AS copy_subject, "
            "j.input AS copy_input, j.context AS copy_context, j.output AS copy_output, "
            "j.run_id IS NOT NULL AS copied FROM runs r "
            f"LEFT JOIN judged_run_copies j ON j.run_id = r.id WHERE r.id IN ({_marks(chunk)})",
            chunk,
        )
        for row in rows:
            record = dict(row)
            for name in (
                "input",
                "output",
                "context",
                "tool_env",
                "copy_subject",
                "copy_input",
                "copy_context",
                "copy_output",
            ):
                record[name] = load(record[name])
            found[row["id"]] = record
    return found
