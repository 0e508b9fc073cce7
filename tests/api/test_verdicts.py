"""Issue 25 through the API: each metric compared case by case, pass^n and flaky cases over
repetitions, and a replay whose model errored left out of the metrics, not failed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract_check import contract_summary, problems
from factories import AGENT, served, tutorial_runs
from first_article import first_article_models
from kindgi.client._models import JudgedComparisonResult
from pytest import approx
from test_eval_runs import PASSWORD, build_suite, correct_tutorial, models_file, try_version

PACKAGE = "My package hasn't arrived yet. Where is it?"


def test_repetitions_say_pass_to_the_n_and_mark_a_flaky_case(tmp_path: Path) -> None:
    # 0.2.0 answers kb-101 (right), then kb-101 and kb-102 (one wrong), then kb-102 (wrong).
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, {PASSWORD: tutorial_runs(ctx)[PASSWORD]})
        project = client.get("/v1/projects/default").json()["id"]
        build_suite(client, "acme.one", project)
        run = try_version(client, "/v1/eval-suites/acme.one/runs", project, repetitions=3)
    case = run["result"]["perCase"][0]
    assert (case["passedAll"], case["passedAny"], case["flaky"]) == (False, True, True)
    assert case["passedBefore"] is False
    summary = run["result"]["summary"]
    assert summary["flaky"] == {"count": 1, "caseIds": [case["caseId"]]}
    paired = summary["metrics"]["weightedYesShare"]["paired"]
    # One case, 1/3 before and (1 + 0.5 + 0) / 3 now: a win, and far too few cases to tell.
    assert (paired["wins"], paired["losses"], paired["ties"], paired["n"]) == (1, 0, 0, 1)
    assert paired["interval"]["low"] == paired["interval"]["high"] == 0.5 - 1 / 3
    assert (paired["beyondNoise"], paired["verdict"]) == (False, "too few cases")
    assert JudgedComparisonResult.model_validate(run["result"]).summary.repetitions == 3
    assert problems("JudgedComparisonSummary", contract_summary(summary)) == []


def test_a_case_whose_model_errored_is_left_out_not_failed(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), first_article_models(tmp_path, fail=True)) as (
        client, ctx,
    ):  # fmt: skip
        runs = tutorial_runs(ctx)
        correct_tutorial(client, runs)
        answer = {"runId": runs[PACKAGE], "answer": {"verdict": "wrong", "shouldSay": "track"}}
        assert client.post("/v1/corrections", json=answer).status_code == 201
        project = client.get("/v1/projects/default").json()["id"]
        run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    summary = run["result"]["summary"]
    assert (summary["cases"], summary["errors"], summary["status"]) == (3, 1, "partial")
    errored = [c for c in run["result"]["perCase"] if c.get("errored")]
    assert len(errored) == 1 and "HTTP 503" in errored[0]["error"]
    assert errored[0]["candidate"] == [] and "passedAll" not in errored[0]
    metrics = summary["metrics"]
    # Both sides rest on the two cases that answered: 2 of 6 right before, 2 of 2 now.
    share = metrics["weightedYesShare"]
    assert (share["baseline"], share["candidate"], share["n"], share["baselineN"]) == (
        1 / 3, 1, 2, 2)  # fmt: skip
    assert (share["paired"]["wins"], share["paired"]["n"]) == (2, 2)
    # The errored case's answer check is not a failed check: no check was made.
    assert summary["corrections"] == {"checked": 0, "passed": 0}
    assert metrics["passRate"]["candidate"] is None
    passed = {c["caseId"]: c["passedAll"] for c in run["result"]["perCase"] if "passedAll" in c}
    assert sorted(passed.values()) == [True, True]


def test_every_metric_has_its_comparison_case_by_case(tmp_path: Path) -> None:
    # The spec's tutorial: each case 1/3 right before, its one right article alone now.
    with served(tmp_path, ("0.1.0", "0.2.0"), first_article_models(tmp_path, fail=False)) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    metrics: dict[str, Any] = run["result"]["summary"]["metrics"]
    outcomes = {
        name: (m["paired"]["wins"], m["paired"]["losses"], m["paired"]["ties"], m["paired"]["n"])
        for name, m in metrics.items()
    }
    assert outcomes == {
        "weightedYesShare": (3, 0, 0, 3),
        "judgedCoverage": (0, 3, 0, 3),
        "weightedPrecisionAtK": (3, 0, 0, 3),
        "caseCoverage": (0, 3, 0, 3),
        "passRate": (0, 0, 0, 0),
    }
    share = metrics["weightedYesShare"]["paired"]
    assert share["interval"] == {"low": approx(2 / 3), "high": approx(2 / 3), "level": 0.95}
    assert (share["resamples"], share["seed"], share["verdict"]) == (2000, 25, "too few cases")
    assert metrics["passRate"]["paired"]["n"] == 0
    assert metrics["passRate"]["paired"]["interval"] is None
