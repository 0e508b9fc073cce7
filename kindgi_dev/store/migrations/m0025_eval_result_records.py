"""Eval run results and finished cases are kept as their records' fields: rewrite old rows.

Results and cases used to be stored in the answers' own shape (`perCase`, `yesWeight`,
`topK`, ...); they now hold `domain.results` fields (`per_case`, `yes_weight`,
`top_k_yes`, ...). Values inside open parts (tools, a difference's expected and actual
values, sample, a preview's input) are kept as they are.
"""

from __future__ import annotations

import json
import re
import sqlite3

from ...domain.json import JSON, JSONObject

SQL = ""

_UPPER = re.compile(r"(?<!^)([A-Z])")
_ZERO_SCORE: JSONObject = {"yesWeight": 0, "totalWeight": 0, "items": 0, "judgedItems": 0}


def _snake(name: str) -> str:
    return _UPPER.sub(r"_\1", name).lower()


def _obj(value: JSON) -> JSONObject:
    """An old part that should be an object (anything else read as an empty one)."""
    return value if isinstance(value, dict) else {}


def _objs(value: JSON) -> list[JSONObject]:
    """An old list of objects (NULL or anything else read as an empty list)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _fields(old: JSONObject, **defaults: JSON) -> JSONObject:
    """A record's fields from one old object: its own keys renamed, nested ones untouched."""
    return {**defaults, **{_snake(key): value for key, value in old.items()}}


def _score(old: JSONObject) -> JSONObject:
    """A case score from its old nested shape."""
    top = _obj(old.get("topK"))
    fresh = _obj(old.get("fresh"))
    return {
        "yes_weight": old.get("yesWeight", 0),
        "total_weight": old.get("totalWeight", 0),
        "items": old.get("items", 0),
        "judged_items": old.get("judgedItems", 0),
        "top_k_yes": top.get("yesWeight", 0),
        "top_k_total": top.get("totalWeight", 0),
        "fresh_yes": fresh.get("yesWeight", 0),
        "fresh_total": fresh.get("totalWeight", 0),
        "fresh_items": fresh.get("items", 0),
    }


def _case(old: JSONObject) -> JSONObject:
    """A case result from its old entry."""
    case = _fields(
        old,
        run_ids=[],
        diverged=False,
        refused_writes=0,
        no_context=False,
        approval_skipped=False,
    )
    case["baseline"] = _score(_obj(old.get("baseline")) or _ZERO_SCORE)
    case["candidate"] = [_score(score) for score in _objs(old.get("candidate"))]
    if "corrections" in old:
        case["corrections"] = [
            _fields(
                {k: v for k, v in check.items() if k != "pass"}, passed=check.get("pass", False)
            )
            for check in _objs(old["corrections"])
        ]
    if "correctionDifferences" in old:
        case["correction_differences"] = [
            {**_fields(d), "differences": [_fields(x) for x in _objs(d.get("differences"))]}
            for d in _objs(old["correctionDifferences"])
        ]
    changes = old.get("changes")
    if isinstance(changes, dict):
        case["changes"] = {
            part: [_fields(item) for item in _objs(changes.get(part))]
            for part in ("kept", "dropped", "new")
        }
    return case


def _metric(old: JSONObject) -> JSONObject:
    return _fields(
        old,
        baseline=None,
        candidate=None,
        delta=None,
        n=0,
        weight=0,
        baseline_n=0,
        baseline_weight=0,
        direction="higher",
    )


def _summary(old: JSONObject, project_id: str) -> JSONObject:
    """A summary from its old shape (counts an older row lacks as 0)."""
    summary = _fields(
        old,
        diverged=0,
        refused_writes=0,
        errors=0,
        stopped=0,
        reads="recorded",
        class_weights="as-recorded",
        repetitions=1,
        sampling={"models": []},
        corrections={"checked": 0, "passed": 0},
        scope={"projectId": project_id},
    )
    summary["candidate"] = _fields(_obj(old.get("candidate")) or {"kind": "agent", "version": None})
    baseline = _obj(old.get("baseline")) or {"kind": "recorded", "versions": []}
    summary["baseline"] = {
        "kind": baseline.get("kind", "recorded"),
        "versions": [_fields(v) for v in _objs(baseline.get("versions"))],
    }
    summary["scope"] = _fields(_obj(summary["scope"]))
    models = _objs(_obj(summary["sampling"]).get("models"))
    summary["sampling"] = {"models": [_fields(m) for m in models]}
    summary["metrics"] = {
        _snake(name): _metric(_obj(metric)) for name, metric in _obj(old.get("metrics")).items()
    }
    judge = summary.get("judge")
    if judge:
        summary["judge"] = _fields(_obj(judge))
    return summary


def result_of(old: JSONObject, project_id: str) -> JSONObject:
    """An eval run's result (a comparison or a dry run's preview) from its old shape."""
    if "dryRun" in old or "preview" in old:
        return {"dry_run": True, "preview": [_fields(c, input=None) for c in _objs(old["preview"])]}
    return {
        "summary": _summary(_obj(old["summary"]), project_id),
        "per_case": [_case(entry) for entry in _objs(old.get("perCase"))],
    }


def finished_case_of(old: JSONObject) -> JSONObject:
    """A finished case from its old row: the entry, with the exact scores kept beside it."""
    result = _case(_obj(old.get("entry")))
    exact = old.get("baseline")
    if isinstance(exact, dict) and "yes_weight" in exact:
        result["baseline"] = exact
        result["candidate"] = old.get("candidate") or []
    return {
        "result": result,
        "checks": old.get("checks") or [],
        "baseline_checks": old.get("baselineChecks") or [],
        "made_on": old.get("madeOn", ""),
        "models": old.get("models") or [],
    }


def rewrite(conn: sqlite3.Connection) -> None:
    """Rewrite every stored result and finished case still in the old shape."""
    runs = conn.execute(
        "SELECT run_id, project_id, result FROM eval_runs WHERE result IS NOT NULL"
    ).fetchall()
    for run_id, project_id, text in runs:
        old = json.loads(text)
        if "perCase" in old or "dryRun" in old:
            new = result_of(old, project_id)
            conn.execute("UPDATE eval_runs SET result = ? WHERE run_id = ?", (_dump(new), run_id))
    cases = conn.execute("SELECT eval_run_id, case_index, result FROM eval_run_cases").fetchall()
    for run_id, index, text in cases:
        old = json.loads(text)
        if "entry" in old:
            conn.execute(
                "UPDATE eval_run_cases SET result = ? WHERE eval_run_id = ? AND case_index = ?",
                (_dump(finished_case_of(old)), run_id, index),
            )


def _dump(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
