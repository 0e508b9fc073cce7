"""A baseline that is another version, or the live one, replayed beside the candidate under
exactly its rules: its numbers are what a run of that version against the recorded runs
gives as its candidate."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flow_pack import flow_served
from kindgi.client import _models as models
from starlette.testclient import TestClient
from tables import every_row
from version_pack import AGENT, GONE, SEARCH, SUITE, corrected_tutorial, register_versions

from kindgi_dev.services.context import Context

RUNS = f"/v1/eval-suites/{SUITE}/runs"
METRICS = ("weightedYesShare", "judgedCoverage", "weightedPrecisionAtK")


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    """The tutorial's corrected runs of 0.1.0 built into a suite, then 0.2.0, 0.2.5 and 0.3.0
    saved."""
    with flow_served(tmp_path_factory.mktemp("baselines")) as (client, ctx, _pack):
        project = corrected_tutorial(client)
        register_versions(ctx)
        yield client, ctx, project


def tried(client: TestClient, project: str, version: str, path: str = RUNS, **more: Any) -> Any:
    """Try `version` at `path`, waited for: the eval run."""
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": version}, **more}
    started = client.post(path, json=body)
    assert started.status_code == 201, started.text
    for _ in range(400):
        run = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
        if run["status"] not in ("pending", "running"):
            assert run["status"] == "completed", run
            return run
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def metrics(run: dict[str, Any]) -> dict[str, Any]:
    return dict(run["result"]["summary"]["metrics"])


def test_a_version_baseline_gives_what_that_version_gave_as_candidate(tutorial: Any) -> None:
    client, _, project = tutorial
    old = tried(client, project, "0.2.0")
    new = tried(client, project, "0.3.0")
    both = tried(client, project, "0.3.0", baseline={"agentId": AGENT, "version": "0.2.0"})
    for name in METRICS:
        paired, before, after = metrics(both)[name], metrics(old)[name], metrics(new)[name]
        assert (paired["baseline"], paired["baselineN"], paired["baselineWeight"]) == (
            before["candidate"], before["n"], before["weight"])  # fmt: skip
        assert (paired["candidate"], paired["n"], paired["weight"]) == (
            after["candidate"], after["n"], after["weight"])  # fmt: skip
        assert paired["delta"] == after["candidate"] - before["candidate"]
    assert {n: (metrics(both)[n]["baseline"], metrics(both)[n]["candidate"]) for n in METRICS} == {
        "weightedYesShare": (1, 0.5),
        "judgedCoverage": (0.5, pytest.approx(2 / 3)),
        "weightedPrecisionAtK": (1, 0.5),
    }
    summary = both["result"]["summary"]
    assert summary["baseline"] == {"kind": "version", "agentId": AGENT, "version": "0.2.0",
                                   "via": "explicit"}  # fmt: skip
    assert summary["candidate"] == {"kind": "agent", "agentId": AGENT, "version": "0.3.0"}
    assert (summary["diverged"], summary["baselineReplays"]["diverged"]) == (0, 1)
    assert summary["sampling"]["models"] == [{"providerId": "function", "model": "article_picker",
                                              "runs": 3}]  # fmt: skip
    assert summary["baselineReplays"]["models"] == summary["sampling"]["models"]
    assert both["comparison"]["baseline"] == {"agentId": AGENT, "version": "0.2.0"}
    models.JudgedComparisonResult.model_validate(both["result"])
    assert isinstance(models.EvalRun.model_validate(both).comparison.baseline, models.EvalBaseline1)


def test_each_case_carries_both_sides(tutorial: Any) -> None:
    client, _, project = tutorial
    old = tried(client, project, "0.2.0")
    both = tried(client, project, "0.3.0", baseline={"agentId": AGENT, "version": "0.2.0"})
    before = {c["caseId"]: c for c in old["result"]["perCase"]}
    for case in both["result"]["perCase"]:
        side, was = case["baselineReplay"], before[case["caseId"]]
        assert case["baseline"] == side["scores"][0] == was["candidate"][0]
        assert (calls(side["tools"]), side["diverged"], side["changes"]) == (
            calls(was["tools"]), was["diverged"], was["changes"])  # fmt: skip
        assert side["refusedWrites"] == was["refusedWrites"] == case["refusedWrites"] == 0
        replays = [client.get(f"/v1/runs/{r}").json() for r in (*side["runIds"], *case["runIds"])]
        assert [r["agent"]["version"] for r in replays] == ["0.2.0", "0.3.0"]
        assert {r["replayOf"] for r in replays} == {was_run(client, was)}
        assert all(t["source"] == "recorded" for t in case["tools"])
        assert [len(case["candidate"]), len(side["scores"])] == [1, 1]


def calls(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls without their call ids, which each replay makes anew."""
    return [{k: v for k, v in t.items() if k != "callId"} for t in tools]


def was_run(client: TestClient, case: dict[str, Any]) -> str:
    """The past run a case's replays replayed."""
    return str(client.get(f"/v1/runs/{case['runIds'][0]}").json()["replayOf"])


def test_both_sides_repeat_as_often(tutorial: Any) -> None:
    client, _, project = tutorial
    once = tried(client, project, "0.3.0", baseline={"agentId": AGENT, "version": "0.2.0"})
    twice = tried(client, project, "0.3.0", baseline={"agentId": AGENT, "version": "0.2.0"},
                  repetitions=2)  # fmt: skip
    for name in METRICS:
        assert metrics(twice)[name]["baseline"] == metrics(once)[name]["baseline"]
        assert (metrics(twice)[name]["spread"], metrics(twice)[name]["baselineSpread"]) == (0, 0)
    case = twice["result"]["perCase"][0]
    assert (len(case["runIds"]), len(case["baselineReplay"]["runIds"])) == (2, 2)
    assert (len(case["candidate"]), len(case["baselineReplay"]["scores"])) == (2, 2)


def test_the_live_baseline_is_the_latest_registered_and_says_so(tutorial: Any) -> None:
    client, _, project = tutorial
    run = tried(client, project, "0.2.0", baseline={"live": {"projectId": project}})
    assert run["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.3.0", "via": "live",
        "liveScope": {"projectId": project}, "liveSource": "latest-registered",
    }  # fmt: skip
    assert run["comparison"]["baseline"] == {"live": {"projectId": project}}
    assert run["comparison"]["baselineVersion"] == run["result"]["summary"]["baseline"]
    assert metrics(run)["weightedYesShare"]["baseline"] == 0.5
    summary = models.JudgedComparisonResult.model_validate(run["result"]).summary
    assert isinstance(summary.baseline, models.Baseline1) and summary.baseline.via == "live"


def test_on_the_agents_test_set_the_checks_and_coverage_pair_up(tutorial: Any) -> None:
    client, _, project = tutorial
    path = f"/v1/agents/{AGENT}/test-set/runs"
    old = tried(client, project, "0.2.0", path)
    both = tried(client, project, "0.3.0", path, baseline={"agentId": AGENT, "version": "0.2.0"})
    for name in ("caseCoverage", "passRate"):
        assert metrics(both)[name]["baseline"] == metrics(old)[name]["candidate"]
        assert metrics(both)[name]["baselineN"] == metrics(old)[name]["n"]
    assert metrics(both)["caseCoverage"]["baseline"] == 0.5


def test_a_dry_run_counts_each_sides_replays(tutorial: Any) -> None:
    client, _, project = tutorial
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.3.0"},
            "dryRun": True, "repetitions": 2}  # fmt: skip
    alone = client.post(RUNS, json=body).json()
    beside = client.post(RUNS, json={**body, "baseline": {"agentId": AGENT, "version": "0.2.0"}})
    assert alone["dryRunPreview"]["replays"] == {"candidate": 6, "baseline": 0}
    assert beside.json()["dryRunPreview"]["replays"] == {"candidate": 6, "baseline": 6}
    assert beside.json()["dryRunPreview"]["cases"] == 3
    models.StartEvalRunResult.model_validate(beside.json())


REFUSED = [
    ("nope", 400, "validation-failed", "baseline"),
    (7, 400, "validation-failed", "baseline"),
    ({"agentId": AGENT, "version": "latest"}, 400, "validation-failed", "baseline/version"),
    ({"version": "0.2.0"}, 400, "validation-failed", "baseline"),
    ({"agentId": AGENT, "version": "0.2.0", "extra": 1}, 400, "validation-failed",
     "baseline/extra"),
    ({"flowId": "acme-ops.suggest-articles", "version": "0.1.0"}, 400, "validation-failed",
     "baseline/flowId"),
    ({"live": {"projectId": "00000000-0000-4000-8000-000000000000"}}, 404, "project-not-found",
     None),
    ({"agentId": AGENT, "version": "9.9.9"}, 404, "agent-not-found", None),
    ({"agentId": AGENT, "version": "0.2.5"}, 409, "version-not-runnable", None),
]  # fmt: skip


@pytest.mark.parametrize(("baseline", "status", "code", "field"), REFUSED)
def test_a_baseline_that_cant_run_is_refused_and_nothing_is_written(
    tutorial: Any, baseline: Any, status: int, code: str, field: str | None
) -> None:
    client, ctx, project = tutorial
    before = every_row(Path(ctx.db.path))
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.3.0"},
            "baseline": baseline}  # fmt: skip
    answer = client.post(RUNS, json=body)
    assert every_row(Path(ctx.db.path)) == before
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code
    if field is not None:
        assert error["details"]["field"] == field
    if code == "version-not-runnable":
        assert error["message"] == GONE
        assert error["details"]["missing"] == [f"{SEARCH}@0.9.0"]


def test_a_rescore_scores_both_sides_again(tutorial: Any) -> None:
    client, _, project = tutorial
    both = tried(client, project, "0.3.0", baseline={"agentId": AGENT, "version": "0.2.0"})
    case = both["result"]["perCase"][0]
    mark = {"runId": case["baselineReplay"]["runIds"][0], "verdict": "yes",
            "item": {"key": "answer", "pointer": "/appended/3/content"}}  # fmt: skip
    assert client.post("/v1/judgments", json=mark).status_code == 201
    started = client.post(f"/v1/eval-runs/{both['runId']}/rescore")
    assert started.status_code == 201, started.text
    again = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
    assert again["result"]["summary"]["baseline"] == both["result"]["summary"]["baseline"]
    fresh = next(c for c in again["result"]["perCase"] if c["caseId"] == case["caseId"])
    assert fresh["baselineReplay"]["runIds"] == case["baselineReplay"]["runIds"]
    assert fresh["baseline"]["fresh"] == {"yesWeight": 1, "totalWeight": 1, "items": 1}
    assert fresh["baselineReplay"]["scores"] == [fresh["baseline"]]
    assert (fresh["candidate"], fresh["runIds"]) == (case["candidate"], case["runIds"])
    assert metrics(again)["weightedYesShare"]["baseline"] == 1
    assert metrics(again)["judgedCoverage"]["baseline"] == pytest.approx(4 / 6)


def test_the_live_baseline_is_the_version_pinned_live_in_its_scope(tutorial: Any) -> None:
    client, _, project = tutorial
    path = [{"key": "company", "value": "acme"}]
    scope = {"kind": "segment", "projectId": project, "path": path}
    pinned = client.post(f"/v1/agents/{AGENT}/promotions", json={"version": "0.2.0",
                                                                 "scope": scope})  # fmt: skip
    assert pinned.status_code in (200, 201), pinned.text
    there = tried(client, project, "0.3.0",
                  baseline={"live": {"projectId": project, "segments": path}})  # fmt: skip
    above = tried(client, project, "0.2.0", baseline={"live": {"projectId": project}})
    assert there["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.2.0", "via": "live",
        "liveScope": {"projectId": project, "segments": path}, "liveSource": "pin",
    }  # fmt: skip
    assert metrics(there)["weightedYesShare"]["baseline"] == 1
    assert above["result"]["summary"]["baseline"]["version"] == "0.3.0"
    assert above["result"]["summary"]["baseline"]["liveSource"] == "latest-registered"
