"""Finish m0028's move: an eval run's stored result that still holds its cases (`per_case`,
left by m0028 where the run's stored cases didn't match them in number) gives them to
`eval_run_cases`, where every reader reads cases, and keeps its summary only.

The result's list is what the run answered, so it replaces the run's stored cases, in its
order; a case keeps what its stored row counted (checks, the version it was made on, its
models) when a row of its case id was there.
"""

from __future__ import annotations

import json
import sqlite3

from ...domain.json import JSONObject

SQL = ""


def rewrite(conn: sqlite3.Connection) -> None:
    """Move every remaining `per_case` list into `eval_run_cases`."""
    runs = conn.execute(
        "SELECT run_id, result, coalesce(completed_at, started_at) FROM eval_runs "
        "WHERE json_type(result, '$.per_case') = 'array'"
    ).fetchall()
    for run_id, text, ended in runs:
        result = json.loads(text)
        cases: list[JSONObject] = result.pop("per_case")
        stored = {
            case_id: (json.loads(row), finished)
            for case_id, row, finished in conn.execute(
                "SELECT case_id, result, finished_at FROM eval_run_cases WHERE eval_run_id = ?",
                (run_id,),
            )
        }
        conn.execute("DELETE FROM eval_run_cases WHERE eval_run_id = ?", (run_id,))
        for index, case in enumerate(cases):
            old, finished = stored.get(case["case_id"], ({}, ended))
            row = {
                "result": case,
                "checks": old.get("checks", []),
                "baseline_checks": old.get("baseline_checks", []),
                "made_on": old.get("made_on", ""),
                "models": old.get("models", []),
                "baseline_models": old.get("baseline_models", []),
            }
            conn.execute(
                "INSERT INTO eval_run_cases (eval_run_id, case_index, case_id, result, "
                "finished_at) VALUES (?, ?, ?, ?, ?)",
                (run_id, index, case["case_id"], _dump(row), finished),
            )
        conn.execute(
            "UPDATE eval_runs SET result = ?, cases_done = ? WHERE run_id = ?",
            (_dump(result), len(cases), run_id),
        )


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
