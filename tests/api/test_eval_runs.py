"""Issue 6 through the API: decisions checked strictly, repetitions' spread, cancel, rescore."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from factories import (
    AGENT,
    QUESTIONS,
    SEARCH,
    agent_manifest,
    recorded_run,
    served,
    tool_manifests,
    tutorial_runs,
)
from starlette.testclient import TestClient
from stubs.openai_stub import OpenAIStub

from kindgi_dev.domain.replay import LIVE_SETTINGS
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog

PASSWORD = "I forgot my password and can't sign in."

CANDIDATE_MODELS = '''\
"""0.2.0 as a function model: `mode` says how it behaves in this test."""

import itertools

from kindgi_dev.models import Reply, ToolCall, model

calls = itertools.count()
TITLES = {"kb-101": "Reset your password", "kb-102": "Change the email on your account"}
PICKS = [["kb-101"], ["kb-101", "kb-102"], ["kb-102"]]


@model(default=True)
def candidate(turn):
    if not turn.tool_results():
        query = turn.question() if MODE == "same-search" else "password reset help"
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": query})])
    picks = PICKS[next(calls) % 3] if MODE == "same-search" else ["kb-101"]
    return Reply(text="Try these.", output={"articles": [{"id": a, "title": TITLES[a]}
                                                         for a in picks]})
'''


def models_file(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / "candidate_models.py"
    path.write_text(f"MODE = {mode!r}\n" + CANDIDATE_MODELS)
    return path


def correct_tutorial(client: TestClient, run_ids: dict[str, str]) -> None:
    for question, run_id in run_ids.items():
        for rank, article in enumerate(QUESTIONS[question]):
            body = {
                "runId": run_id,
                "verdict": "yes" if rank == 0 else "no",
                "item": {"key": article, "pointer": f"/output/articles/{rank}", "rank": rank},
            }
            assert client.post("/v1/judgments", json=body).status_code == 201


def finish(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(200):
        run = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return run
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def build_suite(client: TestClient, suite_id: str, project: str) -> dict[str, Any]:
    """Build version 1.0.0 of a suite from the picker's judged runs; the build's answer."""
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    built = client.post(f"/v1/eval-suites/{suite_id}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text
    return dict(built.json())


def start_version(client: TestClient, path: str, project: str, **options: Any) -> Any:
    """Start trying 0.2.0 at `path` (a suite's or the test set's runs)."""
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}, **options}
    started = client.post(path, json=body)
    assert started.status_code == 201, started.text
    return started


def try_version(client: TestClient, path: str, project: str, **options: Any) -> dict[str, Any]:
    """Try 0.2.0 at `path` and wait for the run to end."""
    return finish(client, start_version(client, path, project, **options).json()["runId"])


def test_a_decisions_case_replays_strictly_and_fails_on_other_arguments(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "other-search")) as (
        client, ctx,
    ):  # fmt: skip
        run_id = tutorial_runs(ctx)[PASSWORD]
        project = client.get("/v1/projects/default").json()["id"]
        correction = {
            "runId": run_id,
            "items": [],
            "decisions": {
                "verdict": "wrong",
                "shouldCall": [{"toolId": SEARCH, "args": {"query": "reset my password"}}],
            },
        }
        assert client.post("/v1/corrections", json=correction).status_code == 201
        run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    assert run["status"] == "completed"
    assert run["frozenVersion"]["version"] == run["suiteVersion"] == "1.0.0"
    case = run["result"]["perCase"][0]
    assert case["tools"][0]["source"] == "refused"
    assert case["tools"][0]["reason"] == "replay: this read has no recorded result"
    assert case["refusedWrites"] == 1
    assert case["corrections"][0]["pass"] is False
    assert case["corrections"][0]["repetitionsPassed"] == 0
    kinds = {d["kind"] for d in case["correctionDifferences"][0]["differences"]}
    assert "field-value" in kinds
    value = next(
        d for d in case["correctionDifferences"][0]["differences"] if d["kind"] == "field-value"
    )
    assert value["field"] == "query"
    assert value["expected"] == "reset my password"
    assert value["actual"] == "password reset help"
    summary = run["result"]["summary"]
    assert summary["corrections"] == {"checked": 1, "passed": 0}
    assert summary["metrics"]["passRate"]["candidate"] == 0


def test_repetitions_of_a_varying_model_report_a_spread(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        runs = tutorial_runs(ctx)
        correct_tutorial(client, {PASSWORD: runs[PASSWORD]})
        project = client.get("/v1/projects/default").json()["id"]
        assert build_suite(client, "acme.one", project)["caseCount"] == 1
        run = try_version(client, "/v1/eval-suites/acme.one/runs", project, repetitions=3)
        events = client.get(f"/v1/eval-runs/{run['runId']}/events").text
        replays = client.get("/v1/runs", params={"evalRunId": run["runId"]}).json()["data"]
    assert events.count("event: eval-run.case-completed") == 1
    assert events.rstrip().splitlines()[-2] == "event: eval-run.completed"
    assert sorted(r["id"] for r in replays) == sorted(run["result"]["perCase"][0]["runIds"])
    share = run["result"]["summary"]["metrics"]["weightedYesShare"]
    assert share["baseline"] == 1 / 3
    assert share["candidate"] == (1 + 0.5 + 0) / 3
    assert share["spread"] == 1
    case = run["result"]["perCase"][0]
    assert len(case["runIds"]) == 3 and len(case["candidate"]) == 3
    assert case["tools"][0]["source"] == "recorded"
    assert run["result"]["summary"]["diverged"] == 0


def test_rescore_uses_the_corrections_made_since(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "other-search")) as (
        client, ctx,
    ):  # fmt: skip
        runs = tutorial_runs(ctx)
        correct_tutorial(client, {PASSWORD: runs[PASSWORD]})
        project = client.get("/v1/projects/default").json()["id"]
        build_suite(client, "acme.one", project)
        first = try_version(client, "/v1/eval-suites/acme.one/runs", project)
        assert first["result"]["summary"]["metrics"]["weightedYesShare"]["candidate"] == 1
        relabel = {
            "runId": runs[PASSWORD],
            "verdict": "no",
            "item": {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0},
        }
        assert client.post("/v1/judgments", json=relabel).status_code == 201
        again = client.post(f"/v1/eval-runs/{first['runId']}/rescore")
        assert again.status_code == 201
        rescored = finish(client, again.json()["runId"])
        assert client.post(f"/v1/eval-runs/{first['runId']}/cancel").status_code == 409
        missing = client.get("/v1/eval-runs/00000000-0000-4000-8000-000000000000")
    assert rescored["comparison"]["rescoreOf"] == first["runId"]
    assert rescored["result"]["summary"]["metrics"]["weightedYesShare"]["candidate"] == 0
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "eval-run-not-found"


def test_answer_checks_go_to_the_judging_model_when_one_is_configured(tmp_path: Path) -> None:
    judge = OpenAIStub().serve()
    judge.queue_text('{"answer": "", "output": {"pass": true, "reason": "It says it."}}')
    env = {"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": judge.base_url}
    providers = '[tool.kindgi-dev.providers]\ndefault = "function"\n'
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"), env,
                    providers) as (client, ctx):  # fmt: skip
            run_id = tutorial_runs(ctx)[PASSWORD]
            project = client.get("/v1/projects/default").json()["id"]
            answer = {"runId": run_id, "answer": {"verdict": "wrong", "shouldSay": "reset link"}}
            assert client.post("/v1/corrections", json=answer).status_code == 201
            run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    finally:
        judge.stop()
    summary = run["result"]["summary"]
    assert summary["judge"] == {"kind": "model", "providerId": "openai", "model": "gpt-4o-mini"}
    assert summary["corrections"] == {"checked": 1, "passed": 1}
    asked = judge.requests[0].json["messages"][-1]["content"]
    assert "reset link" in asked and "Try these." in asked
    assert run["result"]["perCase"][0]["candidate"][0]["items"] == 2


def test_a_keyless_local_server_is_the_judge_the_summary_names(tmp_path: Path) -> None:
    judge = OpenAIStub().serve()
    judge.queue_text('{"answer": "", "output": {"pass": true, "reason": "It says it."}}')
    providers = (
        '[tool.kindgi-dev.providers]\ndefault = "function"\n\n'
        f'[tool.kindgi-dev.providers.openai]\nbase_url = "{judge.base_url}"\nmodel = "llama3.2"\n'
    )
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"), {},
                    providers) as (client, ctx):  # fmt: skip
            run_id = tutorial_runs(ctx)[PASSWORD]
            project = client.get("/v1/projects/default").json()["id"]
            answer = {"runId": run_id, "answer": {"verdict": "wrong", "shouldSay": "reset link"}}
            assert client.post("/v1/corrections", json=answer).status_code == 201
            run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    finally:
        judge.stop()
    summary = run["result"]["summary"]
    assert summary["judge"] == {"kind": "model", "providerId": "openai", "model": "llama3.2"}
    assert summary["corrections"] == {"checked": 1, "passed": 1}
    assert "authorization" not in {k.lower() for k in judge.requests[0].headers}


def test_without_a_judging_model_the_summary_says_the_judge_was_deterministic(
    tmp_path: Path,
) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        run_id = tutorial_runs(ctx)[PASSWORD]
        project = client.get("/v1/projects/default").json()["id"]
        answer = {"runId": run_id, "answer": {"verdict": "wrong", "shouldSay": "reset link"}}
        assert client.post("/v1/corrections", json=answer).status_code == 201
        run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    summary = run["result"]["summary"]
    assert summary["judge"]["kind"] == "deterministic"
    assert summary["corrections"] == {"checked": 1, "passed": 0}
    difference = run["result"]["perCase"][0]["correctionDifferences"][0]["differences"][0]
    assert difference["kind"] == "answer"


def test_a_version_pinning_other_settings_reads_live_and_diverges(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0",), models_file(tmp_path, "same-search")) as (client, ctx):
        index = PackIndex(
            pack_id="acme-ops", pack_version="0.1.0", artifact_version="20260101.2",
            tools=tool_manifests(), flows=[], guardrails=[], file_errors=[],
            path=Path("index.json"), warnings=[],
            agents=[{**agent_manifest("0.2.0"),
                     "settings": [{"id": "acme.weights", "version": "1.0.0"}]}],
        )  # fmt: skip
        catalog.register(ctx, index)
        run_id = tutorial_runs(ctx)[PASSWORD]
        correct_tutorial(client, {PASSWORD: run_id})
        project = client.get("/v1/projects/default").json()["id"]
        build_suite(client, "acme.one", project)
        run = try_version(client, "/v1/eval-suites/acme.one/runs", project)
    case = run["result"]["perCase"][0]
    assert case["tools"][0]["source"] == "live"
    assert case["tools"][0]["reason"] == LIVE_SETTINGS
    assert case["diverged"] is True
    assert run["result"]["summary"]["diverged"] == 1


def test_a_test_set_run_weighs_each_case_by_its_corrector_group(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        runs = tutorial_runs(ctx)
        project = client.get("/v1/projects/default").json()["id"]
        group = client.post(
            "/v1/judge-classes",
            json={"scope": {"kind": "project", "projectId": project}, "name": "Leads", "weight": 3},
        )
        refund = next(q for q in QUESTIONS if q.startswith("I was charged"))
        for question, class_id, verdicts in (
            (PASSWORD, group.json()["id"], ["right", "wrong", "wrong"]),
            (refund, None, ["right", "right", "right"]),
        ):
            items = [
                {"key": a, "pointer": f"/output/articles/{n}", "rank": n, "verdict": v}
                for n, (a, v) in enumerate(zip(QUESTIONS[question], verdicts, strict=True))
            ]
            body = {"runId": runs[question], "items": items, "judgeClassId": class_id}
            created = client.post("/v1/corrections", json={k: v for k, v in body.items() if v})
            assert created.status_code == 201, created.text
        run = try_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    share = run["result"]["summary"]["metrics"]["weightedYesShare"]
    assert share["baseline"] == (3 + 3) / (9 + 3)
    assert share["baselineWeight"] == 12


SLOW_MODELS = """\
import time

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def slow(turn):
    time.sleep(0.3)
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    return Reply(text="Here.", output={"articles": []})
"""


def test_cancel_stops_a_run_within_a_second_and_keeps_other_runs(tmp_path: Path) -> None:
    slow = tmp_path / "slow_models.py"
    slow.write_text(SLOW_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), slow) as (client, ctx):
        runs = tutorial_runs(ctx)
        correct_tutorial(client, runs)
        unrelated = recorded_run(ctx, PASSWORD, finish=False)
        project = client.get("/v1/projects/default").json()["id"]
        build_suite(client, "acme.all", project)
        started = start_version(client, "/v1/eval-suites/acme.all/runs", project)
        run_id = started.json()["runId"]
        time.sleep(0.2)
        began = time.monotonic()
        cancelled = client.post(f"/v1/eval-runs/{run_id}/cancel")
        took = time.monotonic() - began
        read = client.get(f"/v1/eval-runs/{run_id}").json()
        replays = client.get("/v1/runs", params={"evalRunId": run_id}).json()["data"]
        other = client.get(f"/v1/runs/{unrelated}").json()
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json() == read, "answered with its cases, as a read answers it"
    assert took < 1.0
    assert {r["status"] for r in replays} == {"cancelled"}
    assert other["status"] == "running"
