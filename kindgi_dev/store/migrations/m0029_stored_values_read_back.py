"""Every stored value reads back: rows no answer could render are repaired.

The console's forms and older versions kept what the API refuses: a correction's args
nested 500 levels deep, `NaN`, `1e23`, a judge class of weight `1e308` whose suites and
eval runs then summed to `Infinity`, lone surrogates. Reading any of them failed for good
(`500 Maximum serialization depth exceeded`, a connection dropped mid-answer). Each such
value in the tables of corrections, test cases, frozen and pulled versions, suites, judge
classes and eval-run results is repaired by `domain.stored_values` (clamped, cut with a
marker, its surrogates replaced), and its stored text as it was kept in `repaired_values`,
so nothing a person gave is lost. Text that is not UTF-8 is decoded with U+FFFD in place of
what isn't.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from functools import partial

from ...domain.bounds import MAX_RANK, MAX_WEIGHT
from ...domain.stored_values import (
    COPY,
    DECISIONS,
    EVAL_RESULT,
    EVAL_SETTINGS,
    FROZEN_CASE,
    ITEMS,
    RANK,
    SPEC,
    SUITE_CASE,
    WEIGHT,
    Open,
    Rules,
    bounded,
    clean_text,
    may_need_repair,
    repaired,
    repaired_suite_case,
)
from ...domain.time import now_iso

SQL = """
CREATE TABLE repaired_values (
    table_name TEXT NOT NULL,
    row_id INTEGER NOT NULL,
    column_name TEXT NOT NULL,
    original BLOB,
    repaired_at TEXT NOT NULL
)
"""

_PLAIN = Rules()
_JSON: dict[str, dict[str, Rules | Open]] = {
    "corrections": {"decisions": DECISIONS, "answer": _PLAIN},
    "verdicts": {"item_value": COPY},
    "hand_cases": {"items": ITEMS, "decisions": DECISIONS, "answer": _PLAIN},
    "case_retirements": {},
    "judged_run_copies": {
        "subject": _PLAIN, "input": COPY, "context": COPY, "output": COPY, "segments": _PLAIN,
    },
    "test_set_versions": {},
    "test_set_version_cases": {"body": FROZEN_CASE},
    "pulled_test_set_versions": {},
    "pulled_test_set_cases": {"body": FROZEN_CASE},
    "eval_suites": {"spec": SPEC},
    "eval_suite_cases": {"body": SUITE_CASE},
    "test_set_registry": {"spec": SPEC},
    "judge_classes": {"assertable_by": _PLAIN},
    "eval_runs": {
        "agent_ref": _PLAIN, "flow_ref": _PLAIN, "result": EVAL_RESULT,
        "comparison": EVAL_SETTINGS, "frozen_version": _PLAIN,
    },
    "eval_run_cases": {"result": EVAL_RESULT},
}  # fmt: skip
"""Each table holding what people corrected or what was built from it: its JSON columns,
each with the rules of what it holds (its other text columns need only be UTF-8)."""
_NUMBERS = {
    ("verdicts", "rank"): (RANK, f"typeof(rank) NOT IN ('integer', 'null') OR rank < 0 "
                                 f"OR rank > {MAX_RANK}"),
    ("judge_classes", "weight"): (WEIGHT, f"typeof(weight) NOT IN ('integer', 'real') "
                                          f"OR weight < 0 OR weight > {MAX_WEIGHT}"),
}  # fmt: skip
"""Numeric columns with a bound, and the rows whose value is out of it."""
_BATCH = 500


def rewrite(conn: sqlite3.Connection) -> None:
    """Repair every unreadable value of those tables, keeping each one's text as it was."""
    now = now_iso()
    for table, json_columns in _JSON.items():
        for column, rules in json_columns.items():
            _repair_json(conn, table, column, rules, now)
        text = [c for c in _text_columns(conn, table) if c not in json_columns]
        _repair_text(conn, table, text, now)
    for (table, column), (bound, out_of_bound) in _NUMBERS.items():
        rows = conn.execute(f"SELECT rowid, {column} FROM {table} WHERE {out_of_bound}")
        for row_id, value in rows.fetchall():
            _store(conn, table, column, row_id, value, bounded(value, bound), now)


def _repair_json(
    conn: sqlite3.Connection, table: str, column: str, rules: Rules | Open, at: str
) -> None:
    """One JSON column: each row that may need it read, repaired, and written back when it
    changed."""
    repair = repaired_suite_case if rules is SUITE_CASE else partial(repaired, rules=rules)
    for row_id, raw in _rows(conn, table, column, f"{column} IS NOT NULL"):
        text = _decoded(raw)
        decoded = text.encode() == raw
        if decoded and not may_need_repair(text, rules):
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            continue  # not JSON any version wrote; left as it is
        fixed = repair(value)
        if fixed is not value or not decoded:
            _store(conn, table, column, row_id, raw, _dump(fixed), at)


def _repair_text(conn: sqlite3.Connection, table: str, columns: list[str], at: str) -> None:
    """Plain text columns: a value that isn't UTF-8 decoded with U+FFFD for what isn't (only
    non-ASCII values are read: SQLite counts their characters and bytes apart)."""
    for column in columns:
        non_ascii = (
            f"typeof({column}) = 'text' AND length(CAST({column} AS BLOB)) != length({column})"
        )
        for row_id, raw in _rows(conn, table, column, non_ascii):
            text = _decoded(raw)
            if text.encode() != raw:
                _store(conn, table, column, row_id, raw, text, at)


def _rows(
    conn: sqlite3.Connection, table: str, column: str, where: str
) -> Iterator[tuple[int, bytes]]:
    """The rows of `table` that `where` holds for, by rowid, with `column`'s stored bytes; a
    batch is read whole before any of its rows is written back."""
    after = -(2**63)
    query = (
        f"SELECT rowid, CAST({column} AS BLOB) FROM {table} WHERE rowid > ? AND ({where}) "
        f"ORDER BY rowid LIMIT {_BATCH}"
    )
    while batch := conn.execute(query, (after,)).fetchall():
        yield from batch
        after = batch[-1][0]


def _decoded(raw: bytes) -> str:
    """Stored bytes as text: a lone surrogate encoded as UTF-8 bytes becomes U+FFFD (a pair
    of halves its character), and bytes that are no UTF-8 at all U+FFFD too."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return clean_text(raw.decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _store(
    conn: sqlite3.Connection,
    table: str,
    column: str,
    row_id: int,
    old: object,
    new: object,
    at: str,
) -> None:
    """Write a repaired value, keeping the one it replaces in `repaired_values`."""
    conn.execute(
        "INSERT INTO repaired_values (table_name, row_id, column_name, original, repaired_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (table, row_id, column, old, at),
    )
    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, row_id))


def _text_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """A table's columns declared TEXT."""
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[2] == "TEXT"]


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
