"""Eval runs and their finished cases.

A run's result and each finished case are kept as their records' fields (snake_case JSON),
read back as the records. A judged run's result row keeps only its summary: each case's
comparison is already in `eval_run_cases`, read from there a page at a time, so neither
ending a run nor reading it holds every case at once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from pydantic import TypeAdapter
from pydantic_core import from_json

from ..domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, RunSettings
from ..domain.json import JSON
from ..domain.results import (
    CaseResult,
    ComparisonResult,
    DryRunResult,
    EvalResult,
    FinishedCase,
    Summary,
)
from . import eval_run_json as kept
from .db import Database
from .jsoncol import dump, load
from .query import SQLValue, Where

T = TypeVar("T")


@cache
def _adapter(kind: type[T]) -> TypeAdapter[T]:
    """A record's pydantic adapter, built when first used: building these at import took
    a sizeable share of start, and no request before the first eval run needs them."""
    return TypeAdapter(kind)


CASE_PAGE = 50
"""Finished cases read at once when a run's cases are walked: small enough not to grow the
process for good (see `services.replay_cases.PAGE`)."""


@dataclass(frozen=True)
class EvalRunRow:
    """An eval run as its row keeps it: what it tries (`agent_ref` or `flow_ref`), on which
    suite or frozen test-set version, how it compares (`comparison`), and how far it got. A
    judged `result` read back has no cases: they are read with `case_pages`."""

    run_id: str
    tenant_id: str
    project_id: str
    suite_id: str
    suite_version: str
    status: str
    started_at: str
    case_count: int
    kind: str = "judged"
    dry_run: bool = False
    agent_ref: AgentCandidate | None = None
    flow_ref: FlowCandidate | None = None
    comparison: RunSettings | None = None
    frozen_version: FrozenVersion | None = None
    correlation_id: str | None = None
    completed_at: str | None = None
    result: EvalResult | None = None
    error: str | None = None
    cancel_reason: str | None = None
    cases_done: int = 0

    @property
    def settings(self) -> RunSettings:
        """How the run compares (the defaults for a row that kept none)."""
        return self.comparison or RunSettings()


_FIELDS = (
    "run_id",
    "tenant_id",
    "project_id",
    "suite_id",
    "suite_version",
    "kind",
    "agent_ref",
    "flow_ref",
    "status",
    "dry_run",
    "started_at",
    "completed_at",
    "result",
    "error",
    "cancel_reason",
    "correlation_id",
    "comparison",
    "frozen_version",
    "case_count",
    "cases_done",
)


def insert(db: Database, run: EvalRunRow) -> None:
    """Store a new eval run."""
    db.run(
        f"INSERT INTO eval_runs ({', '.join(_FIELDS)}) VALUES ({', '.join('?' * len(_FIELDS))})",
        (
            run.run_id,
            run.tenant_id,
            run.project_id,
            run.suite_id,
            run.suite_version,
            run.kind,
            None if run.agent_ref is None else dump(kept.agent_json(run.agent_ref)),
            None if run.flow_ref is None else dump(kept.flow_json(run.flow_ref)),
            run.status,
            1 if run.dry_run else 0,
            run.started_at,
            run.completed_at,
            _result_json(run.result),
            run.error,
            run.cancel_reason,
            run.correlation_id,
            None if run.comparison is None else dump(kept.settings_json(run.comparison)),
            None if run.frozen_version is None else dump(kept.frozen_json(run.frozen_version)),
            run.case_count,
            run.cases_done,
        ),
    )


def finish(
    db: Database,
    run_id: str,
    *,
    status: str,
    completed_at: str,
    result: Summary | DryRunResult,
    error: str | None = None,
) -> None:
    """End an eval run with its status and result (a judged run's `Summary`, or a dry run's
    `DryRunResult`), and the error that ended it, if any (an earlier error stays without)."""
    sql = "UPDATE eval_runs SET status = ?, completed_at = ?, result = ?"
    params: list[str | None] = [status, completed_at, _result_json(result)]
    if error:
        sql += ", error = ?"
        params.append(error)
    db.run(sql + " WHERE run_id = ?", [*params, run_id])


def get(db: Database, run_id: str) -> EvalRunRow | None:
    """One eval run, its `result` as its record (a judged result's cases are read with
    `case_pages`)."""
    row = db.one(f"SELECT {', '.join(_FIELDS)} FROM eval_runs WHERE run_id = ?", (run_id,))
    return _row(row) if row else None


def _result_json(result: EvalResult | Summary | None) -> str | None:
    """A run's result record as its column keeps it: a judged one's summary only."""
    if isinstance(result, ComparisonResult):
        return _result_json(result.summary)
    if isinstance(result, Summary):
        return dump({"summary": _adapter(Summary).dump_python(result, mode="json")})
    if isinstance(result, DryRunResult):
        return dump(_adapter(DryRunResult).dump_python(result, mode="json"))
    return None


def _result_of(stored: JSON) -> EvalResult | None:
    """A kept result as its record: a judged one with no cases (see `case_pages`)."""
    if not isinstance(stored, dict):
        return None
    if "summary" not in stored:
        dry: DryRunResult = _adapter(DryRunResult).validate_python(stored)
        return dry
    summary: Summary = _adapter(Summary).validate_python(stored["summary"])
    return ComparisonResult(summary, [])


def _object(text: str | None) -> Mapping[str, object] | None:
    """A JSON column holding an object (None for NULL)."""
    value = load(text)
    return value if isinstance(value, dict) else None


def _row(row: sqlite3.Row) -> EvalRunRow:
    """A read row as its record, its JSON columns read by their stored formats."""
    return EvalRunRow(
        run_id=row["run_id"],
        tenant_id=row["tenant_id"],
        project_id=row["project_id"],
        suite_id=row["suite_id"],
        suite_version=row["suite_version"],
        kind=row["kind"],
        status=row["status"],
        dry_run=bool(row["dry_run"]),
        started_at=row["started_at"],
        case_count=row["case_count"],
        cases_done=row["cases_done"],
        agent_ref=kept.agent_of(_object(row["agent_ref"])),
        flow_ref=kept.flow_of(_object(row["flow_ref"])),
        comparison=kept.settings_of(_object(row["comparison"])),
        frozen_version=kept.frozen_of(_object(row["frozen_version"])),
        correlation_id=row["correlation_id"],
        completed_at=row["completed_at"],
        result=_result_of(load(row["result"])),
        error=row["error"],
        cancel_reason=row["cancel_reason"],
    )


@dataclass(frozen=True)
class RunFilters:
    """Which eval runs a list keeps: each filter given narrows it (`since`/`until` bound
    when it started)."""

    suite_id: str | None = None
    status: str | None = None
    agent_id: str | None = None
    flow_id: str | None = None
    project_id: str | None = None
    since: str | None = None
    until: str | None = None


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    filters: RunFilters,
) -> list[EvalRunRow]:
    """Up to `limit + 1` eval runs, newest first (read as `get` reads one)."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal(
        {"suite_id": filters.suite_id, "status": filters.status, "project_id": filters.project_id}
    )
    clauses = (
        (f"json_extract(agent_ref, '{kept.AGENT_ID}') = ?", filters.agent_id),
        (f"json_extract(flow_ref, '{kept.FLOW_ID}') = ?", filters.flow_id),
        ("started_at >= ?", filters.since),
        ("started_at <= ?", filters.until),
    )
    for clause, value in clauses:
        if value is not None:
            where.add(clause, value)
    where.after(after, "started_at, run_id")
    rows = db.all(
        f"SELECT {', '.join(_FIELDS)} FROM eval_runs WHERE {where} "
        "ORDER BY started_at DESC, run_id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_row(r) for r in rows]


def add_case(
    db: Database, run_id: str, index: int, case_id: str, result: FinishedCase, at: str
) -> None:
    """Keep one finished case's result as soon as it lands, and count it on the run's row."""
    with db.transaction() as conn:
        known = conn.execute(
            "SELECT 1 FROM eval_run_cases WHERE eval_run_id = ? AND case_index = ?",
            (run_id, index),
        ).fetchone()
        conn.execute(
            "INSERT OR REPLACE INTO eval_run_cases (eval_run_id, case_index, case_id, result, "
            "finished_at) VALUES (?, ?, ?, ?, ?)",
            (
                run_id,
                index,
                case_id,
                _case_json(result, case_id),
                at,
            ),
        )
        if known is None:
            conn.execute(
                "UPDATE eval_runs SET cases_done = cases_done + 1 WHERE run_id = ?", (run_id,)
            )


def add_cases(
    db: Database, run_id: str, cases: Sequence[tuple[int, str, FinishedCase, str]]
) -> None:
    """Keep a page of finished cases (index, case id, result, finished at), each index new
    to the run (an executor stores a case once), and count them on the run's row."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO eval_run_cases (eval_run_id, case_index, case_id, result, finished_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    index,
                    case_id,
                    _case_json(result, case_id),
                    at,
                )
                for index, case_id, result, at in cases
            ],
        )
        conn.execute(
            "UPDATE eval_runs SET cases_done = cases_done + ? WHERE run_id = ?",
            (len(cases), run_id),
        )


def _case_json(result: FinishedCase, case_id: str) -> str | None:
    """A finished case as its row (of `case_id`) keeps it: without the fields at their
    defaults (most of a case's are None), packed (`kept.packed_case`), read back as they
    were: a row of about 0.5–0.6 kB, seven to a page."""
    fields = _adapter(FinishedCase).dump_python(result, mode="json", exclude_defaults=True)
    return dump(kept.packed_case(fields, case_id))


_CASES_AFTER = (
    "SELECT case_index, case_id, result FROM eval_run_cases WHERE eval_run_id = ? "
    "AND case_index > ? ORDER BY case_index LIMIT ?"
)
"""An eval run's finished cases after an index, at most a number of them."""


def finished_after(
    db: Database, run_id: str, after: int = -1
) -> Iterator[list[tuple[int, FinishedCase]]]:
    """An eval run's finished cases after index `after` (by index), `CASE_PAGE` at a time,
    on a scan's own connection."""
    with db.scanning() as read:
        while rows := read(_CASES_AFTER, (run_id, after, CASE_PAGE)):
            yield [(r["case_index"], _finished(r["result"], r["case_id"])) for r in rows]
            after = rows[-1]["case_index"]


def case_slice(db: Database, run_id: str, start: int, count: int) -> list[CaseResult]:
    """At most `count` of an eval run's finished cases' comparisons, from the `start`-th
    (by position: a cancelled run's finished cases may skip indexes)."""
    rows = db.all(
        "SELECT case_id, result FROM eval_run_cases WHERE eval_run_id = ? ORDER BY case_index "
        "LIMIT ? OFFSET ?",
        (run_id, count, start),
    )
    return [_finished(r["result"], r["case_id"]).result for r in rows]


def finished_pages(db: Database, run_id: str) -> Iterator[list[FinishedCase]]:
    """An eval run's finished cases in order, `CASE_PAGE` at a time."""
    for page in finished_after(db, run_id):
        yield [case for _, case in page]


def _finished(text: str, case_id: str) -> FinishedCase:
    """A stored finished case (of `case_id`), read with only its field names kept in
    pydantic's string cache: its ids and words would stay there for good, scattered over
    the memory a large run's reading took, which then can't go back to the system."""
    case: FinishedCase = _adapter(FinishedCase).validate_python(
        kept.unpacked_case(from_json(text, cache_strings="keys"), case_id)
    )
    return case


_REPLAYING = (
    "WITH replays AS (SELECT value FROM json_each(?2)) "
    "SELECT eval_run_id, case_index, case_id, result FROM eval_run_cases "
    "WHERE case_id IN (SELECT value FROM json_each(?1)) "
    "OR EXISTS (SELECT 1 FROM json_each(result, '$.result.run_ids') WHERE value IN replays) "
    "OR EXISTS (SELECT 1 FROM json_each(result, '$.result.baseline_replay.run_ids') "
    "WHERE value IN replays)"
)
"""The finished cases of some cases, or replaying some runs (a version baseline's too)."""


def cases_of(
    db: Database, case_ids: Sequence[str], run_ids: Sequence[str]
) -> list[tuple[str, int, FinishedCase]]:
    """Every eval run's finished cases of `case_ids` or whose replays are among `run_ids`,
    with their eval run and index: each case row is read (no index holds a case's runs),
    which an erasure, the one asking, can afford."""
    rows = db.all(_REPLAYING, (dump(list(case_ids)), dump(list(run_ids))))
    return [(r["eval_run_id"], r["case_index"], _finished(r["result"], r["case_id"])) for r in rows]


def rewrite_cases(db: Database, cases: Sequence[tuple[str, int, FinishedCase]]) -> None:
    """Write these finished cases (eval run, index, case) over the ones stored."""
    with db.transaction() as conn:
        conn.executemany(
            "UPDATE eval_run_cases SET result = ? WHERE eval_run_id = ? AND case_index = ?",
            [
                (_case_json(case, case.result.case_id), run_id, index)
                for run_id, index, case in cases
            ],
        )


def dry_runs_of(db: Database, run_ids: Sequence[str]) -> list[tuple[str, DryRunResult]]:
    """The dry runs whose preview copied one of these runs' input, with their result: every
    dry run's result is read (no index holds a preview's runs), as for `cases_of`."""
    rows = db.all(
        "SELECT run_id, result FROM eval_runs WHERE dry_run = 1 AND EXISTS (SELECT 1 FROM "
        "json_each(result, '$.preview') WHERE json_extract(value, '$.run_id') IN "
        "(SELECT value FROM json_each(?)))",
        (dump(list(run_ids)),),
    )
    return [(r["run_id"], _adapter(DryRunResult).validate_python(load(r["result"]))) for r in rows]


def rewrite_dry_runs(db: Database, results: Sequence[tuple[str, DryRunResult]]) -> None:
    """Write these dry runs' results (eval run, result) over the ones stored."""
    with db.transaction() as conn:
        conn.executemany(
            "UPDATE eval_runs SET result = ? WHERE run_id = ?",
            [(_result_json(result), run_id) for run_id, result in results],
        )


def case_pages(db: Database, run_id: str) -> Iterator[list[CaseResult]]:
    """Each finished case's comparison in order, `CASE_PAGE` at a time."""
    for page in finished_pages(db, run_id):
        yield [case.result for case in page]


@dataclass(frozen=True)
class Unfinished:
    """An eval run left `pending`/`running`: how many cases it has, and finished."""

    run_id: str
    case_count: int
    done: int


def unfinished(db: Database) -> list[Unfinished]:
    """Eval runs left `pending`/`running`, with how many cases they finished."""
    rows = db.all(
        "SELECT run_id, case_count, cases_done FROM eval_runs "
        "WHERE status IN ('pending', 'running')"
    )
    return [Unfinished(r["run_id"], r["case_count"], r["cases_done"]) for r in rows]


@dataclass(frozen=True)
class LiveVerdict:
    """A live verdict on a run's item, with its class's weight now (1 without a class)."""

    item_key: str
    pointer: str | None
    rank: int | None
    verdict: str
    restricted: bool
    item_value: JSON
    weight: float


def live_verdicts(db: Database, run_id: str) -> list[LiveVerdict]:
    """A run's live verdicts with their class's weight now, for rescoring."""
    rows = db.all(
        "SELECT v.item_key, v.pointer, v.rank, v.verdict, v.restricted, v.item_value, "
        "coalesce(c.weight, 1.0) AS weight FROM corrections k "
        "JOIN verdicts v ON v.correction_seq = k.seq "
        "LEFT JOIN judge_classes c ON c.id = v.judge_class_id "
        "WHERE k.run_id = ? AND v.unregistered_at IS NULL AND v.superseded_by IS NULL "
        "ORDER BY v.item_key, k.corrector_id, k.participant_id, v.seq",
        (run_id,),
    )
    return [
        LiveVerdict(
            r["item_key"],
            r["pointer"],
            r["rank"],
            r["verdict"],
            bool(r["restricted"]),
            load(r["item_value"]),
            float(r["weight"]),
        )
        for r in rows
    ]
