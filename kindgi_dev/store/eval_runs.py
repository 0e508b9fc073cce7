"""Eval runs and their finished cases.

A run's result and each finished case are kept as their records' fields (snake_case JSON),
read back as the records. A judged run's result row keeps only its summary: each case's
comparison is already in `eval_run_cases`, read from there a page at a time, so neither
ending a run nor reading it holds every case at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, TypeVar

from pydantic import TypeAdapter
from pydantic_core import from_json

from ..domain.results import CaseResult, ComparisonResult, DryRunResult, FinishedCase, Summary
from .db import Database
from .jsoncol import JsonRows, dump, load
from .query import Where

_ROWS = JsonRows("agent_ref", "flow_ref", "result", "comparison", "frozen_version")
T = TypeVar("T")


@cache
def _adapter(kind: type[T]) -> TypeAdapter[T]:
    """A record's pydantic adapter, built when first used: building these at import took
    a sizeable share of start, and no request before the first eval run needs them."""
    return TypeAdapter(kind)


CASE_PAGE = 50
"""Finished cases read at once when a run's cases are walked: small enough not to grow the
process for good (see `services.replay_cases.PAGE`)."""
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


def insert(db: Database, run: dict[str, Any]) -> None:
    """Store a new eval run."""
    _ROWS.insert(db, "eval_runs", [f for f in _FIELDS if f in run], [_stored(run)])


def update(db: Database, run_id: str, changes: dict[str, Any]) -> None:
    """Set some columns of an eval run (`result`: a judged run's `Summary`, or a dry run's
    `DryRunResult`)."""
    _ROWS.update(db, "eval_runs", ("run_id", run_id), _stored(changes))


def get(db: Database, run_id: str) -> dict[str, Any] | None:
    """One eval run, its `result` as its record (a judged result's cases are read with
    `case_pages`)."""
    row = db.one(f"SELECT {', '.join(_FIELDS)} FROM eval_runs WHERE run_id = ?", (run_id,))
    return _decoded(row) if row else None


def _stored(run: dict[str, Any]) -> dict[str, Any]:
    """A run's columns with its result record as plain data."""
    result = run.get("result")
    if isinstance(result, Summary):
        return {**run, "result": {"summary": _adapter(Summary).dump_python(result, mode="json")}}
    if isinstance(result, DryRunResult):
        return {**run, "result": _adapter(DryRunResult).dump_python(result, mode="json")}
    return run


def _decoded(row: Any) -> dict[str, Any]:
    """A read row as a dict, its JSON loaded and its result a record: a judged result with
    no cases (they are read with `case_pages`)."""
    record = _ROWS.decoded(row)
    stored = record.get("result")
    if stored is None:
        return record
    if "summary" not in stored:
        record["result"] = _adapter(DryRunResult).validate_python(stored)
        return record
    record["result"] = ComparisonResult(_adapter(Summary).validate_python(stored["summary"]), [])
    return record


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: list[Any] | None,
    filters: dict[str, Any],
) -> list[dict[str, Any]]:
    """Up to `limit + 1` eval runs, newest first (read as `get` reads one)."""
    where = Where("tenant_id = ?", tenant_id)
    special = {
        "agent_id": "json_extract(agent_ref, '$.agentId') = ?",
        "flow_id": "json_extract(flow_ref, '$.flowId') = ?",
        "from": "started_at >= ?",
        "to": "started_at <= ?",
    }
    for column, value in filters.items():
        if value is not None:
            where.add(special.get(column, f"{column} = ?"), value)
    where.after(after, "started_at, run_id")
    rows = db.all(
        f"SELECT {', '.join(_FIELDS)} FROM eval_runs WHERE {where} "
        "ORDER BY started_at DESC, run_id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_decoded(r) for r in rows]


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
                _case_json(result),
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
                    _case_json(result),
                    at,
                )
                for index, case_id, result, at in cases
            ],
        )
        conn.execute(
            "UPDATE eval_runs SET cases_done = cases_done + ? WHERE run_id = ?",
            (len(cases), run_id),
        )


def _case_json(result: FinishedCase) -> str | None:
    """A finished case as its row keeps it: without the fields at their defaults (most of
    a case's are None), read back as they were; a row under a kilobyte, four to a page."""
    return dump(_adapter(FinishedCase).dump_python(result, mode="json", exclude_defaults=True))


_CASES_AFTER = (
    "SELECT case_index, result FROM eval_run_cases WHERE eval_run_id = ? "
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
            yield [(r["case_index"], _finished(r["result"])) for r in rows]
            after = rows[-1]["case_index"]


def case_slice(db: Database, run_id: str, start: int, count: int) -> list[CaseResult]:
    """At most `count` of an eval run's finished cases' comparisons, from the `start`-th
    (by position: a cancelled run's finished cases may skip indexes)."""
    rows = db.all(
        "SELECT result FROM eval_run_cases WHERE eval_run_id = ? ORDER BY case_index "
        "LIMIT ? OFFSET ?",
        (run_id, count, start),
    )
    return [_finished(r["result"]).result for r in rows]


def finished_pages(db: Database, run_id: str) -> Iterator[list[FinishedCase]]:
    """An eval run's finished cases in order, `CASE_PAGE` at a time."""
    for page in finished_after(db, run_id):
        yield [case for _, case in page]


def _finished(text: str) -> FinishedCase:
    """A stored finished case, read with only its field names kept in pydantic's string
    cache: its ids and words would stay there for good, scattered over the memory a large
    run's reading took, which then can't go back to the system."""
    case: FinishedCase = _adapter(FinishedCase).validate_python(
        from_json(text, cache_strings="keys")
    )
    return case


def case_pages(db: Database, run_id: str) -> Iterator[list[CaseResult]]:
    """Each finished case's comparison in order, `CASE_PAGE` at a time."""
    for page in finished_pages(db, run_id):
        yield [case.result for case in page]


def unfinished(db: Database) -> list[dict[str, Any]]:
    """Eval runs left `pending`/`running`, with how many cases they finished."""
    rows = db.all(
        "SELECT run_id, case_count, cases_done AS done FROM eval_runs "
        "WHERE status IN ('pending', 'running')"
    )
    return [dict(r) for r in rows]


def live_verdicts(db: Database, run_id: str) -> list[dict[str, Any]]:
    """A run's live verdicts with their class's weight now (1 without a class), for rescoring."""
    rows = db.all(
        "SELECT v.item_key, v.pointer, v.rank, v.verdict, v.restricted, v.item_value, "
        "coalesce(c.weight, 1.0) AS weight FROM corrections k "
        "JOIN verdicts v ON v.correction_seq = k.seq "
        "LEFT JOIN judge_classes c ON c.id = v.judge_class_id "
        "WHERE k.run_id = ? AND v.unregistered_at IS NULL AND v.superseded_by IS NULL "
        "ORDER BY v.item_key, k.corrector_id, k.participant_id, v.seq",
        (run_id,),
    )
    return [{**dict(r), "item_value": load(r["item_value"])} for r in rows]
