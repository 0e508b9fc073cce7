"""Resuming an eval run: only the cases it didn't finish replay, into a new run that names it
and sums up the whole set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from factories import AGENT, served, tutorial_runs
from first_article import first_article_models
from test_eval_runs import SLOW_MODELS, correct_tutorial, finish, start_version, try_version
from test_test_set_files import every_row


def same_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary without what differs between two runs of the same cases."""
    return {k: v for k, v in summary.items()
            if k not in ("evalRunId", "completedAt", "suite", "resumeOf")}  # fmt: skip


def test_a_resumed_run_replays_only_the_errored_case_and_reports_the_whole_set(
    tmp_path: Path,
) -> None:
    models = first_article_models(tmp_path, fail=True)
    with served(tmp_path, ("0.1.0", "0.2.0"), models) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        path = f"/v1/agents/{AGENT}/test-set/runs"
        errored = try_version(client, path, project)
        assert errored["result"]["summary"]["errors"] == 1
        first = {c["caseId"]: c for c in errored["result"]["perCase"]}

        models.write_text(models.read_text().replace("FAIL = True", "FAIL = False"))
        stamp = models.stat().st_mtime_ns + 1_000_000_000
        os.utime(models, ns=(stamp, stamp))  # the provider answers again
        resumed_id = client.post(f"/v1/eval-runs/{errored['runId']}/resume").json()["runId"]
        resumed = finish(client, resumed_id)
        whole = try_version(client, path, project)
        replays = client.get("/v1/runs", params={"evalRunId": resumed_id}).json()["data"]

    summary = resumed["result"]["summary"]
    assert (summary["resumeOf"], resumed["comparison"]["resumeOf"]) == (errored["runId"],) * 2
    assert (resumed["suiteId"], resumed["suiteVersion"]) == (
        errored["suiteId"], errored["suiteVersion"])  # fmt: skip
    assert (summary["cases"], summary["errors"], summary["status"]) == (3, 0, "completed")
    assert same_summary(summary) == same_summary(whole["result"]["summary"])
    assert summary["metrics"]["weightedYesShare"]["candidate"] == 1
    # The two cases that answered are kept as they were; only the errored one replayed.
    again = {c["caseId"]: c for c in resumed["result"]["perCase"]}
    assert sorted(again) == sorted(first)
    kept = [i for i, c in first.items() if not c.get("errored")]
    assert all(again[i]["runIds"] == first[i]["runIds"] for i in kept)
    (redone,) = [i for i, c in first.items() if c.get("errored")]
    assert [r["id"] for r in replays] == again[redone]["runIds"]


def test_a_run_with_every_case_finished_is_not_resumable(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), first_article_models(tmp_path, fail=False)) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        done = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
        before = every_row(ctx)
        refused = client.post(f"/v1/eval-runs/{done['runId']}/resume")
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            409, "eval-run-not-resumable")  # fmt: skip
        unknown = client.post("/v1/eval-runs/nobody/resume")
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (
            404, "eval-run-not-found")  # fmt: skip
        assert every_row(ctx) == before


def test_a_run_still_going_is_not_resumable_and_says_to_cancel_it_first(tmp_path: Path) -> None:
    slow = tmp_path / "slow_models.py"
    slow.write_text(SLOW_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), slow) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        run_id = start_version(client, f"/v1/agents/{AGENT}/test-set/runs", project).json()["runId"]
        refused = client.post(f"/v1/eval-runs/{run_id}/resume")
        listed = client.get("/v1/eval-runs").json()["data"]
        client.post(f"/v1/eval-runs/{run_id}/cancel")
    error = refused.json()["error"]
    assert (refused.status_code, error["code"]) == (409, "eval-run-not-resumable")
    assert error["message"] in {
        f"Eval run {run_id} is still {status}; cancel it first, then resume it."
        for status in ("pending", "running")
    }
    assert [run["runId"] for run in listed] == [run_id]  # no resumed run was started


BASELINE_FAILS = '''\
"""Both versions answer each question's first article; with FAIL, 0.1.0's provider fails
on the package question."""

from kindgi_dev.models import Reply, ToolCall, model

FIRST = {"password": "kb-101", "charged": "kb-201", "package": "kb-301"}


@model(default=True)
def picker(turn):
    question = turn.question()
    if FAIL and turn.agent_version == "0.1.0" and "package" in question:
        raise RuntimeError("HTTP 503 from the model's provider, after 5 retries")
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": question})])
    picked = next(a for word, a in FIRST.items() if word in question)
    return Reply(text="Try this.", output={"articles": [{"id": picked, "title": picked}]})
'''


def test_a_run_against_another_version_resumes_both_sides_of_the_cases_it_didnt_finish(
    tmp_path: Path,
) -> None:
    models = tmp_path / "baseline_fails.py"
    models.write_text("FAIL = True\n" + BASELINE_FAILS)
    with served(tmp_path, ("0.1.0", "0.2.0"), models) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        path = f"/v1/agents/{AGENT}/test-set/runs"
        against = {"agentId": AGENT, "version": "0.1.0"}
        errored = try_version(client, path, project, baseline=against)
        first = {c["caseId"]: c for c in errored["result"]["perCase"]}
        models.write_text(models.read_text().replace("FAIL = True", "FAIL = False"))
        stamp = models.stat().st_mtime_ns + 1_000_000_000
        os.utime(models, ns=(stamp, stamp))
        answer = client.post(f"/v1/eval-runs/{errored['runId']}/resume")
        assert answer.status_code == 201, answer.text
        resumed_id = answer.json()["runId"]
        resumed = finish(client, resumed_id)
        replays = client.get("/v1/runs", params={"evalRunId": resumed_id}).json()["data"]
    assert errored["result"]["summary"]["baselineReplays"]["errors"] == 1
    assert errored["result"]["summary"]["errors"] == 0
    summary = resumed["result"]["summary"]
    assert summary["baseline"] == {"kind": "version", "agentId": AGENT, "version": "0.1.0",
                                   "via": "explicit"}  # fmt: skip
    assert (summary["baselineReplays"]["errors"], summary["resumeOf"]) == (0, errored["runId"])
    assert summary["metrics"]["weightedYesShare"]["baselineN"] == 3
    again = {c["caseId"]: c for c in resumed["result"]["perCase"]}
    (redone,) = [i for i, c in first.items() if c["baselineReplay"].get("error")]
    kept = [i for i in first if i != redone]
    assert all(again[i]["baselineReplay"]["runIds"] == first[i]["baselineReplay"]["runIds"]
               for i in kept)  # fmt: skip
    assert sorted(r["id"] for r in replays) == sorted(
        [*again[redone]["runIds"], *again[redone]["baselineReplay"]["runIds"]])  # fmt: skip
    assert sorted(r["agent"]["version"] for r in replays) == ["0.1.0", "0.2.0"]
