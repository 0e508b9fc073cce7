"""Eval runs stored before results became records still read, and answer, as they did."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from kindgi_dev.api.eval_results import ComparisonCaseResult
from kindgi_dev.api.eval_runs import EvalRunAnswer
from kindgi_dev.api.routing import shape
from kindgi_dev.domain.results import ComparisonResult
from kindgi_dev.services.eval_runs import record_of
from kindgi_dev.store import eval_runs as store
from kindgi_dev.store.db import Database


def _metric(**fields: Any) -> dict[str, Any]:
    return {
        "baseline": 0.5,
        "candidate": 1,
        "delta": 0.5,
        "n": 2,
        "weight": 2,
        "baselineN": 2,
        "baselineWeight": 4,
        "direction": "higher",
        **fields,
    }


ENTRY = {
    "caseId": "run-1",
    "runIds": ["replay-1", "replay-2"],
    "baseline": {
        "yesWeight": 1,
        "totalWeight": 2.5,
        "items": 3,
        "judgedItems": 2,
        "topK": {"yesWeight": 1, "totalWeight": 2.5},
    },
    "candidate": [
        {
            "yesWeight": 2,
            "totalWeight": 2,
            "items": 2,
            "judgedItems": 2,
            "topK": {"yesWeight": 2, "totalWeight": 2},
            "fresh": {"yesWeight": 1, "totalWeight": 1, "items": 1},
        }
    ],
    "changes": {"kept": [{"key": "kb-1", "rankBefore": 0, "rank": 0}], "dropped": [], "new": []},
    "tools": [{"step": 1, "callId": "c1", "toolId": "acme.search", "arguments": {"q": "x"}}],
    "diverged": False,
    "refusedWrites": 0,
    "noContext": False,
    "approvalSkipped": False,
    "corrections": [
        {"part": "decisions", "pass": False, "repetitionsPassed": 1, "repetitions": 2},
        {
            "part": "answer",
            "pass": True,
            "repetitionsPassed": 2,
            "repetitions": 2,
            "judgmentId": "j1",
        },
    ],
    "correctionDifferences": [
        {
            "part": "decisions",
            "repetition": 2,
            "differences": [{"kind": "count", "toolId": "acme.search", "expected": 1, "actual": 0}],
        }
    ],
}
STOPPED = {
    "caseId": "run-2",
    "runIds": ["replay-3"],
    "baseline": {
        "yesWeight": 0,
        "totalWeight": 0,
        "items": 1,
        "judgedItems": 0,
        "topK": {"yesWeight": 0, "totalWeight": 0},
    },
    "candidate": [],
    "tools": [],
    "diverged": True,
    "refusedWrites": 1,
    "noContext": False,
    "approvalSkipped": False,
    "stopped": {"toolId": "acme.send", "arguments": {"to": "a"}, "reason": "a write"},
    "rescored": False,
}
RESULT = {
    "summary": {
        "evalRunId": "old-run",
        "status": "completed",
        "completedAt": "2026-01-01T00:01:00.000Z",
        "suite": {"id": "acme.picks", "version": "1.0.0"},
        "candidate": {"kind": "agent", "agentId": "acme.picker", "version": "0.2.0"},
        "baseline": {
            "kind": "recorded",
            "versions": [{"agentId": "acme.picker", "version": "0.1.0", "cases": 2}],
        },
        "scope": {"projectId": "p"},
        "cases": 2,
        "diverged": 1,
        "refusedWrites": 1,
        "errors": 0,
        "stopped": 1,
        "reads": "recorded",
        "classWeights": "as-recorded",
        "sample": {"part": "search", "seed": "s", "holdOutShare": 0.25},
        "sampling": {"models": [{"providerId": "local", "model": "m", "runs": 3}]},
        "repetitions": 2,
        "metrics": {
            "weightedYesShare": _metric(spread=0.5, freshWeight=1),
            "judgedCoverage": _metric(),
            "weightedPrecisionAtK": {"k": 10, **_metric(candidate=None, delta=None)},
            "caseCoverage": _metric(),
            "passRate": _metric(baseline=1.0, candidate=0.5, delta=-0.5, weight=2),
        },
        "corrections": {"checked": 2, "passed": 1},
        "judge": {"kind": "model", "providerId": "local", "model": "m"},
        "rescoreOf": "earlier-run",
    },
    "perCase": [ENTRY, STOPPED],
}
PREVIEW = {"dryRun": True, "preview": [{"caseIndex": 0, "caseId": "run-1", "input": "Hi"}]}
EXACT = {
    "yes_weight": 1.0,
    "total_weight": 2.5,
    "items": 3,
    "judged_items": 2,
    "top_k_yes": 1.0,
    "top_k_total": 2.5,
    "fresh_yes": 0.0,
    "fresh_total": 0.0,
    "fresh_items": 0,
}

EXACT_CANDIDATE = {
    "yes_weight": 2.0,
    "total_weight": 2.0,
    "items": 2,
    "judged_items": 2,
    "top_k_yes": 2.0,
    "top_k_total": 2.0,
    "fresh_yes": 1.0,
    "fresh_total": 1.0,
    "fresh_items": 1,
}


def _old_rows(db: Database) -> None:
    """An eval run with two finished cases and a dry run, as an older kindgi dev kept them."""
    for run_id, result in (("old-run", RESULT), ("old-dry-run", PREVIEW)):
        db.run(
            "INSERT INTO eval_runs (run_id, tenant_id, project_id, suite_id, suite_version, "
            "kind, agent_ref, status, started_at, result, comparison) VALUES (?, 't', 'p', "
            "'acme.picks', '1.0.0', 'judged', ?, 'completed', '2026-01-01T00:00:00.000Z', ?, ?)",
            (
                run_id,
                json.dumps({"agentId": "acme.picker", "version": "0.2.0"}),
                json.dumps(result),
                json.dumps({"k": 10}),
            ),
        )
    case = {
        "entry": ENTRY,
        "baseline": EXACT,
        "candidate": [EXACT_CANDIDATE],
        "checks": [False, True],
        "baselineChecks": [True, True],
        "madeOn": "0.1.0",
        "models": [{"id": "local", "model": "m"}],
    }
    stopped = {**case, "entry": STOPPED, "baseline": None, "checks": []}
    for index, stored in enumerate((case, stopped)):
        db.run(
            "INSERT INTO eval_run_cases (eval_run_id, case_index, case_id, result, finished_at) "
            "VALUES ('old-run', ?, ?, ?, '2026-01-01T00:00:30.000Z')",
            (index, stored["entry"]["caseId"], json.dumps(stored)),
        )


def _answered(db: Database, run_id: str) -> Any:
    """A run's result as its answer has it: its cases from `case_pages` when stored apart."""
    row = store.get(db, run_id)
    assert row is not None
    result = row.result
    if isinstance(result, ComparisonResult) and not result.per_case:
        cases = [case for page in store.case_pages(db, run_id) for case in page]
        row = replace(row, result=replace(result, per_case=cases))
    return shape(EvalRunAnswer, record_of(row))["result"]


def test_an_eval_run_stored_before_results_were_records_answers_as_before(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    db.run("DELETE FROM schema_migrations WHERE version = 25")
    _old_rows(db)
    db.close()
    again = Database(tmp_path / "dev.sqlite3")
    assert again.migrate() == [25]
    for run_id, result in (("old-run", RESULT), ("old-dry-run", PREVIEW)):
        assert _answered(again, run_id) == result
    [[(first, kept), (second, stopped)]] = list(store.finished_after(again, "old-run"))
    assert (first, second) == (0, 1)
    assert kept.result.baseline.total_weight == 2.5
    assert (kept.checks, kept.baseline_checks, kept.made_on) == (
        [False, True],
        [True, True],
        "0.1.0",
    )
    assert kept.models == [{"id": "local", "model": "m"}]
    assert shape(ComparisonCaseResult, stopped.result) == STOPPED
    assert shape(ComparisonCaseResult, kept.result) == ENTRY


def test_a_stored_result_gives_its_cases_to_eval_run_cases_and_reads_the_same(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    db.run("DELETE FROM schema_migrations WHERE version IN (25, 28, 45)")
    _old_rows(db)
    db.run(
        "INSERT INTO eval_runs (run_id, tenant_id, project_id, suite_id, suite_version, kind, "
        "agent_ref, status, started_at, result, comparison) SELECT 'old-run-lost-case', "
        "tenant_id, project_id, suite_id, suite_version, kind, agent_ref, status, started_at, "
        "result, comparison FROM eval_runs WHERE run_id = 'old-run'"
    )
    db.close()
    again = Database(tmp_path / "dev.sqlite3")
    assert again.migrate() == [25, 28, 45]
    kept = {
        r["run_id"]: json.loads(r["result"])
        for r in again.all("SELECT run_id, result FROM eval_runs")
    }
    assert not any("per_case" in result for result in kept.values())
    for run_id in ("old-run", "old-run-lost-case"):
        assert _answered(again, run_id) == RESULT
        unloaded = store.get(again, run_id)
        assert unloaded is not None and unloaded.result.per_case == []
        pages = list(store.case_pages(again, run_id))
        assert [[c.case_id for c in page] for page in pages] == [["run-1", "run-2"]]
    [moved] = again.all("SELECT cases_done FROM eval_runs WHERE run_id = 'old-run-lost-case'")
    assert moved["cases_done"] == 2
    [[(_, lost), _]] = list(store.finished_after(again, "old-run-lost-case"))
    assert (lost.checks, lost.made_on) == ([], "")  # no stored row counted it
