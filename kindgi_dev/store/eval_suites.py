"""Eval suites: their versions, a built suite's frozen cases, and the reads over judged runs
that building one needs (verdicts, corrections, run copies, class weights).

A counted verdict is a live one (not unregistered, not superseded) of a correction that
was neither replaced nor removed. A version's `spec` and a built case are kept as the API
answers them (camelCase, `case_json` writes the cases), so they are passed through as JSON.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from ..domain.json import JSON, JSONObject
from ..domain.judged_suites import CountedVerdict, DecidedCorrection, JudgedCase, JudgedRun
from .case_json import judged_case_json
from .db import Database
from .expectations import decisions_of
from .ids import unpacked
from .jsoncol import dump, load, load_objects
from .query import chunks, marks
from .replay_json import RowParts, full_context, full_input, full_output, is_replay
from .tool_calls import tool_calls

_COUNTED = (
    "v.unregistered_at IS NULL AND v.superseded_by IS NULL "
    "AND c.replaced_by IS NULL AND c.status != 'removed'"
)
_VERSION_FIELDS = (
    "id, version, tenant_id, project_id, kind, description, spec, case_count, created_at, "
    "unregistered_at"
)


@dataclass(frozen=True)
class SuiteVersionRow:
    """One version of a suite as stored: its kind and spec, how many cases it froze, and
    when it was tombstoned (None while it is registered)."""

    id: str
    version: str
    tenant_id: str
    kind: str
    spec: JSONObject
    created_at: str
    project_id: str | None = None
    description: str | None = None
    case_count: int = 0
    unregistered_at: str | None = None


def _version(row: sqlite3.Row) -> SuiteVersionRow:
    spec = load(row["spec"])
    return SuiteVersionRow(
        id=row["id"],
        version=row["version"],
        tenant_id=row["tenant_id"],
        kind=row["kind"],
        spec=spec if isinstance(spec, dict) else {},
        created_at=row["created_at"],
        project_id=row["project_id"],
        description=row["description"],
        case_count=row["case_count"],
        unregistered_at=row["unregistered_at"],
    )


def insert_version(db: Database, suite: SuiteVersionRow) -> bool:
    """Store a suite version; False (and nothing written) when the version is taken."""
    try:
        db.run(
            f"INSERT INTO eval_suites ({_VERSION_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                suite.id,
                suite.version,
                suite.tenant_id,
                suite.project_id,
                suite.kind,
                suite.description,
                dump(suite.spec),
                suite.case_count,
                suite.created_at,
                suite.unregistered_at,
            ),
        )
    except sqlite3.IntegrityError:
        return False
    return True


def insert_cases(db: Database, suite_id: str, version: str, cases: Sequence[JudgedCase]) -> None:
    """Store a built version's cases in order, each as `case_json.judged_case_json` keeps it."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO eval_suite_cases (suite_id, version, seq, case_id, body) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (suite_id, version, i, case.case_id, dump(judged_case_json(case)))
                for i, case in enumerate(cases)
            ],
        )


def get_version(db: Database, suite_id: str, version: str) -> SuiteVersionRow | None:
    """One version of a suite, unregistered or not."""
    row = db.one(
        f"SELECT {_VERSION_FIELDS} FROM eval_suites WHERE id = ? AND version = ?",
        (suite_id, version),
    )
    return _version(row) if row else None


def versions_of(db: Database, tenant_id: str, suite_id: str) -> list[SuiteVersionRow]:
    """Every version of one suite, in no particular order."""
    rows = db.all(
        f"SELECT {_VERSION_FIELDS} FROM eval_suites WHERE tenant_id = ? AND id = ?",
        (tenant_id, suite_id),
    )
    return [_version(r) for r in rows]


def all_versions(db: Database, tenant_id: str) -> list[SuiteVersionRow]:
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
) -> list[tuple[int, JSONObject]]:
    """Up to `limit` (seq, case) of a built version after a position, in stored order."""
    rows = db.all(
        "SELECT seq, body FROM eval_suite_cases WHERE suite_id = ? AND version = ? AND seq > ? "
        "ORDER BY seq LIMIT ?",
        (suite_id, version, after, limit),
    )
    return [(r["seq"], _object(r["body"])) for r in rows]


def _object(text: str) -> JSONObject:
    """A kept case: always an object."""
    value = load(text)
    assert isinstance(value, dict), "a suite case is kept as an object"
    return value


def judged_runs(
    db: Database,
    tenant_id: str,
    project_id: str,
    subject: tuple[str, str],
    class_ids: Sequence[str],
) -> list[JudgedRun]:
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
    params: list[str] = [tenant_id, project_id, *subject]
    if class_ids:
        sql += f" AND v.judge_class_id IN ({marks(class_ids)})"
        params.extend(class_ids)
    rows = db.all(sql + " GROUP BY c.run_id", params)
    return [
        JudgedRun(
            r["run_id"],
            r["first_judged_at"],
            r["judgments"],
            load_objects(r["segments"]),
            r["agent_version"],
        )
        for r in rows
    ]


def counted_verdicts(
    db: Database, run_ids: Sequence[str], class_ids: Sequence[str]
) -> list[tuple[str, CountedVerdict]]:
    """The counted verdicts of some runs (run id, verdict), newest first."""
    found: list[tuple[str, CountedVerdict]] = []
    for chunk in chunks(run_ids):
        sql = (
            "SELECT v.id, c.run_id, v.item_key, v.pointer, v.rank, v.verdict, v.reason, "
            "v.judge_class_id, v.restricted, v.created_at FROM corrections c "
            "JOIN verdicts v ON v.correction_seq = c.seq "
            f"WHERE c.run_id IN ({marks(chunk)}) AND {_COUNTED}"
        )
        params = list(chunk)
        if class_ids:
            sql += f" AND v.judge_class_id IN ({marks(class_ids)})"
            params.extend(class_ids)
        found.extend((r["run_id"], _judgment(r)) for r in db.all(sql, params))
    found.sort(key=lambda pair: (pair[1].created_at, pair[1].id), reverse=True)
    return found


def _judgment(row: sqlite3.Row) -> CountedVerdict:
    return CountedVerdict(
        unpacked(row["id"]),
        row["item_key"],
        row["pointer"],
        row["rank"],
        row["verdict"],
        row["reason"],
        row["judge_class_id"],
        bool(row["restricted"]),
        row["created_at"],
    )


def decision_corrections(
    db: Database, run_ids: Sequence[str]
) -> list[tuple[str, DecidedCorrection | None]]:
    """The standing corrections of some runs that say what the run should have done (run
    id, correction; None for decisions kept in no shape it reads), newest first."""
    found: list[tuple[str, DecidedCorrection | None]] = []
    for chunk in chunks(run_ids):
        rows = db.all(
            "SELECT id, run_id, decisions, judge_class_id, restricted, created_at "
            f"FROM corrections WHERE run_id IN ({marks(chunk)}) AND decisions IS NOT NULL "
            "AND replaced_by IS NULL AND status != 'removed' ORDER BY created_at DESC, id DESC",
            chunk,
        )
        found.extend((row["run_id"], _decided(row)) for row in rows)
    return found


def _decided(row: sqlite3.Row) -> DecidedCorrection | None:
    stored = load(row["decisions"])
    decisions = decisions_of(stored) if isinstance(stored, dict) else None
    if decisions is None:
        return None
    return DecidedCorrection(row["id"], decisions, row["judge_class_id"], bool(row["restricted"]))


def class_weights(db: Database, tenant_id: str) -> dict[str, float]:
    """Every judge class's current weight."""
    rows = db.all("SELECT id, weight FROM judge_classes WHERE tenant_id = ?", (tenant_id,))
    return {r["id"]: float(r["weight"]) for r in rows}


@dataclass(frozen=True)
class JudgedContent:
    """A judged run's own record beside the copy taken at its first judgment (`copy_*`,
    None where none was taken): what a built case shows of it."""

    id: str
    agent_id: str | None
    agent_version: str | None
    flow_id: str | None
    flow_version: str | None
    input: JSON
    output: JSON
    context: JSON
    tool_env: JSON
    content_erased_at: str | None
    copy_subject: JSON
    copy_input: JSON
    copy_context: JSON
    copy_output: JSON
    copied: bool


def run_copies(db: Database, run_ids: Sequence[str]) -> dict[str, JudgedContent]:
    """Each run's content and its judged copy, by run id."""
    found: dict[str, JudgedContent] = {}
    for chunk in chunks(run_ids):
        rows = db.all(
            "SELECT r.id, r.agent_id, r.agent_version, r.flow_id, r.flow_version, r.input, "
            "r.output, r.context, r.tool_env, r.content_erased_at, r.eval_run_id, "
            "r.conversation_id, r.provider_id, r.model, j.subject AS copy_subject, "
            "j.input AS copy_input, j.context AS copy_context, j.output AS copy_output, "
            "j.run_id IS NOT NULL AS copied FROM runs r "
            f"LEFT JOIN judged_run_copies j ON j.run_id = r.id WHERE r.id IN ({marks(chunk)})",
            chunk,
        )
        for r in rows:
            given, output, context = load(r["input"]), load(r["output"]), load(r["context"])
            if is_replay(r["eval_run_id"], r["agent_id"]):
                run_id, given = r["id"], full_input(given)
                parts = RowParts(run_id, r["conversation_id"], r["provider_id"], r["model"],
                                 given, partial(tool_calls, db, run_id))  # fmt: skip
                output, context = full_output(output, parts), full_context(context)
            found[r["id"]] = JudgedContent(
                r["id"],
                r["agent_id"],
                r["agent_version"],
                r["flow_id"],
                r["flow_version"],
                given,
                output,
                context,
                load(r["tool_env"]),
                r["content_erased_at"],
                load(r["copy_subject"]),
                load(r["copy_input"]),
                load(r["copy_context"]),
                load(r["copy_output"]),
                bool(r["copied"]),
            )
    return found
