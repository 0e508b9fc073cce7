"""A finished case's row keeps its scores as lists of values, not objects naming them, and
leaves out its fields at their empty values (#29 point 1); it reads back as the record it
was, and a row stored before, with named scores and every field, reads as it did."""

from __future__ import annotations

import json
from pathlib import Path

from kindgi_dev.domain.changes import Changes, ItemChange
from kindgi_dev.domain.metrics import CaseScore
from kindgi_dev.domain.results import BaselineReplay, CaseResult, FinishedCase
from kindgi_dev.store import eval_runs
from kindgi_dev.store.db import Database

PLAIN = CaseScore(1.0, 3.0, 4, 3, 1.0, 3.0)
FRESH = CaseScore(0.5, 2.0, 2, 1, 0.0, 1.0, fresh_yes=0.5, fresh_total=1.0)
CASE = FinishedCase(
    result=CaseResult(
        case_id="case-1",
        run_ids=["r-1", "r-2"],
        baseline=PLAIN,
        candidate=[FRESH, CaseScore(0.0, 0.0, 2, 0, 0.0, 0.0)],
        diverged=False,
        refused_writes=0,
        no_context=False,
        approval_skipped=True,
        changes=Changes([], [ItemChange("kb-301", rank_before=0)], [ItemChange("kb-101", rank=0)]),
        tools=[
            {
                "step": 0,
                "callId": "c-1",
                "toolId": "search",
                "toolVersion": "0.1.0",
                "arguments": {"q": "x"},
                "source": "recorded",
            },
            {
                "step": 1,
                "callId": "c-2",
                "toolId": "refund",
                "toolVersion": "0.1.0",
                "arguments": {},
                "source": "refused",
                "reason": "no",
            },
            {"callId": "c-3", "toolId": "search"},  # not a call's usual names: kept as it is
        ],
        baseline_replay=BaselineReplay(["b-1"], [FRESH], True, 1, False),
    ),
    checks=[],
    baseline_checks=[],
    made_on="0.1.0",
    models=[{"id": "function", "model": "candidate"}, {"id": "openai"}],
)


def _db(tmp_path: Path) -> Database:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    db.run(
        "INSERT INTO eval_runs (run_id, tenant_id, project_id, suite_id, suite_version, kind, "
        "status, dry_run, started_at, case_count) VALUES ('er', 't', 'p', 's', '1.0.0', "
        "'judged', 'running', 0, '2026-01-01T00:00:00.000Z', 2)"
    )
    return db


def _kept(db: Database) -> list[dict[str, object]]:
    rows = db.all("SELECT result FROM eval_run_cases WHERE eval_run_id = 'er' ORDER BY case_index")
    return [json.loads(row["result"]) for row in rows]


def test_scores_are_kept_as_their_values_and_read_back_whole(tmp_path: Path) -> None:
    db = _db(tmp_path)
    eval_runs.add_cases(db, "er", [(0, "case-1", CASE, "2026-01-01T00:00:01.000Z")])

    [kept] = _kept(db)
    result = kept["result"]
    assert isinstance(result, dict)
    assert json.dumps(result["baseline"]) == "[1, 3, 4, 3, 1, 3]"
    assert json.dumps(result["candidate"]) == "[[0.5, 2, 2, 1, 0, 1, 0.5, 1], [0, 0, 2, 0, 0, 0]]"
    assert json.dumps(result["baseline_replay"]["scores"]) == "[[0.5, 2, 2, 1, 0, 1, 0.5, 1]]"
    assert result["changes"] == {"dropped": [["kb-301", 0]], "new": [["kb-101", None, 0]]}
    assert result["tools"] == [[0, "c-1", "search", "0.1.0", {"q": "x"}, "recorded"],
                               [1, "c-2", "refund", "0.1.0", {}, "refused", "no"],
                               {"callId": "c-3", "toolId": "search"}]  # fmt: skip
    assert kept["models"] == [["function", "candidate"], ["openai"]]
    assert "yes_weight" not in json.dumps(kept)
    assert list(kept) == ["result", "made_on", "models"]  # no empty checks
    assert list(result) == [
        "run_ids",
        "baseline",
        "candidate",
        "approval_skipped",
        "changes",
        "tools",
        "baseline_replay",
    ]  # its case id the row's
    assert list(result["baseline_replay"]) == ["run_ids", "scores", "diverged", "refused_writes"]
    [[read]] = list(eval_runs.finished_pages(db, "er"))
    assert read == CASE
    assert [list(t) for t in read.result.tools or []] == [list(t) for t in CASE.result.tools or []]
    assert {type(w) for s in (read.result.baseline, *read.result.candidate) for w in
            (s.yes_weight, s.total_weight, s.top_k_yes, s.top_k_total)} == {float}  # fmt: skip


def test_a_case_stored_with_named_scores_reads_as_it_did(tmp_path: Path) -> None:
    db = _db(tmp_path)
    eval_runs.add_cases(db, "er", [(0, "case-1", CASE, "2026-01-01T00:00:01.000Z")])
    named = {
        "result": {
            **_kept(db)[0]["result"],  # type: ignore[dict-item]
            "diverged": False, "refused_writes": 0, "no_context": False,
            "changes": {"kept": [], "dropped": [{"key": "kb-301", "rank_before": 0}],
                        "new": [{"key": "kb-101", "rank": 0}]},
            "tools": [t for t in CASE.result.tools or []],
            "baseline": {"yes_weight": 1.0, "total_weight": 3.0, "items": 4, "judged_items": 3,
                         "top_k_yes": 1.0, "top_k_total": 3.0},
            "candidate": [
                {"yes_weight": 0.5, "total_weight": 2.0, "items": 2, "judged_items": 1,
                 "top_k_yes": 0.0, "top_k_total": 1.0, "fresh_yes": 0.5, "fresh_total": 1.0},
                {"yes_weight": 0.0, "total_weight": 0.0, "items": 2, "judged_items": 0,
                 "top_k_yes": 0.0, "top_k_total": 0.0},
            ],
            "baseline_replay": {"run_ids": ["b-1"], "diverged": True, "refused_writes": 1,
                                "approval_skipped": False,
                                "scores": [{"yes_weight": 0.5, "total_weight": 2.0, "items": 2,
                                            "judged_items": 1, "top_k_yes": 0.0,
                                            "top_k_total": 1.0, "fresh_yes": 0.5,
                                            "fresh_total": 1.0}]},
        },
        "checks": [], "baseline_checks": [], "made_on": "0.1.0",
        "models": [{"id": "function", "model": "candidate"}, {"id": "openai"}],
    }  # fmt: skip
    db.run(
        "INSERT INTO eval_run_cases (eval_run_id, case_index, case_id, result, finished_at) "
        "VALUES ('er', 1, 'case-1', ?, '2026-01-01T00:00:02.000Z')",
        (json.dumps(named),),
    )

    assert [case for page in eval_runs.finished_pages(db, "er") for case in page] == [CASE, CASE]
    assert eval_runs.case_slice(db, "er", 1, 1) == [CASE.result]
