"""Reusing earlier answers (`reuse: true`): a run of the same agent content on the same
frozen cases takes the answers an earlier run gave instead of replaying, and counts them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, served, tutorial_runs
from first_article import first_article_models
from stubs.openai_stub import OpenAIStub
from test_eval_runs import PASSWORD, correct_tutorial, models_file, try_version
from test_test_set_files import every_row

PATH = f"/v1/agents/{AGENT}/test-set/runs"


def replays_of(client: Any, eval_run_id: str) -> list[str]:
    """The ids of the replay runs an eval run made itself."""
    return [
        r["id"] for r in client.get("/v1/runs", params={"evalRunId": eval_run_id}).json()["data"]
    ]


def run_ids(run: dict[str, Any]) -> dict[str, list[str]]:
    """Each case's replay run ids, by case id."""
    return {c["caseId"]: c["runIds"] for c in run["result"]["perCase"]}


def test_a_second_run_asked_to_reuse_takes_every_answer_and_counts_them(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), first_article_models(tmp_path, fail=False)) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        not_kept = try_version(client, PATH, project, repetitions=2)
        kept_before = every_row(ctx)["kept_answers"]
        first = try_version(client, PATH, project, repetitions=2, reuse=True)
        first_replays = replays_of(client, first["runId"])
        second = try_version(client, PATH, project, repetitions=2, reuse=True)
        second_replays = replays_of(client, second["runId"])
        kept_after = every_row(ctx)["kept_answers"]
        asked_not = try_version(client, PATH, project, repetitions=2)
        asked_not_replays = replays_of(client, asked_not["runId"])
        kept_last = every_row(ctx)["kept_answers"]

    # A run not asked to reuse keeps no answer: the first run asked finds none, and keeps its 6.
    assert kept_before == []
    before, after = first["result"]["summary"], second["result"]["summary"]
    assert (before["cases"], before["reusedAnswers"], len(first_replays)) == (3, 0, 6)
    assert len(kept_after) == 6
    assert (after["cases"], after["reusedAnswers"]) == (3, 6)  # 3 cases × 2 repetitions
    assert after["metrics"] == before["metrics"] == not_kept["result"]["summary"]["metrics"]
    assert after["corrections"] == before["corrections"]
    assert second["comparison"]["reuse"] is True
    # Nothing replayed: each answer is the first run's, named by its replay run.
    assert second_replays == []
    assert run_ids(second) == run_ids(first)
    # Without `reuse` every case replays again, the summary has no count, nothing is kept.
    assert "reusedAnswers" not in asked_not["result"]["summary"]
    assert "reusedAnswers" not in not_kept["result"]["summary"]
    assert "reuse" not in asked_not["comparison"]
    assert len(asked_not_replays) == 6
    assert asked_not["result"]["summary"]["metrics"] == before["metrics"]
    assert kept_last == kept_after


def test_a_changed_function_model_source_reuses_no_answer(tmp_path: Path) -> None:
    models = first_article_models(tmp_path, fail=False)
    with served(tmp_path, ("0.1.0", "0.2.0"), models) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        first = try_version(client, PATH, project, reuse=True)
        models.write_text(models.read_text() + "\n# the same answers, from another source\n")
        stamp = models.stat().st_mtime_ns + 1_000_000_000
        os.utime(models, ns=(stamp, stamp))  # the watcher loads the new source
        changed = try_version(client, PATH, project, reuse=True)
        replays = replays_of(client, changed["runId"])
        again = try_version(client, PATH, project, reuse=True)

    summary = changed["result"]["summary"]
    assert (summary["cases"], summary["reusedAnswers"]) == (3, 0)
    assert len(replays) == 3
    assert summary["metrics"] == first["result"]["summary"]["metrics"]
    # The new source's answers are kept in turn: the next run reuses them.
    assert again["result"]["summary"]["reusedAnswers"] == 3
    assert run_ids(again) == run_ids(changed)


@pytest.mark.parametrize("value", ["yes", 1, None, {"on": True}, [True]])
def test_a_bad_reuse_value_is_refused_naming_the_field_and_writes_nothing(
    tmp_path: Path, value: Any
) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), first_article_models(tmp_path, fail=False)) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        before = every_row(ctx)
        body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"},
                "reuse": value}  # fmt: skip
        refused = client.post(PATH, json=body)
        assert every_row(ctx) == before
    error = refused.json()["error"]
    assert (refused.status_code, error["code"], error["details"]["field"]) == (
        400, "validation-failed", "reuse")  # fmt: skip


def test_a_judging_verdict_on_the_same_part_and_texts_is_reused_only_when_asked(
    tmp_path: Path,
) -> None:
    judge = OpenAIStub().serve()
    for _ in range(3):  # at most: the first run, the run not asking to reuse, one more
        judge.queue_text('{"answer": "", "output": {"pass": true, "reason": "It says it."}}')
    env = {"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": judge.base_url}
    providers = '[tool.kindgi-dev.providers]\ndefault = "function"\n'
    models = models_file(tmp_path, "same-search")
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models, env, providers) as (client, ctx):
            run_id = tutorial_runs(ctx)[PASSWORD]
            project = client.get("/v1/projects/default").json()["id"]
            answer = {"runId": run_id, "answer": {"verdict": "wrong", "shouldSay": "reset link"}}
            assert client.post("/v1/corrections", json=answer).status_code == 201
            first = try_version(client, PATH, project, reuse=True)
            asked_first = len(judge.requests)
            models.write_text(models.read_text() + "\n# the same answers, from another source\n")
            stamp = models.stat().st_mtime_ns + 1_000_000_000
            os.utime(models, ns=(stamp, stamp))
            reused = try_version(client, PATH, project, reuse=True)
            asked_reusing = len(judge.requests)
            not_asked = try_version(client, PATH, project)
            asked_after = len(judge.requests)
    finally:
        judge.stop()
    # The answer replayed (its source changed) but said the same: the judge wasn't asked.
    assert reused["result"]["summary"]["reusedAnswers"] == 0
    assert (asked_first, asked_reusing, asked_after) == (1, 1, 2)
    checked = {"checked": 1, "passed": 1}
    assert first["result"]["summary"]["corrections"] == checked
    assert reused["result"]["summary"]["corrections"] == checked
    assert not_asked["result"]["summary"]["corrections"] == checked


PASSES = '{"answer": "", "output": {"pass": true, "reason": "It says it."}}'
FAILS = '{"answer": "", "output": {"pass": false, "reason": "It does not."}}'
FUNCTION_MODELS = '[tool.kindgi-dev.providers]\ndefault = "function"\n'


def correct_the_answer(client: Any, ctx: Any) -> str:
    """Say the password run's answer should say "reset link"; the project's id."""
    run_id = tutorial_runs(ctx)[PASSWORD]
    answer = {"runId": run_id, "answer": {"verdict": "wrong", "shouldSay": "reset link"}}
    assert client.post("/v1/corrections", json=answer).status_code == 201
    return str(client.get("/v1/projects/default").json()["id"])


def configure(tmp_path: Path, providers: str) -> None:
    """Save the pack's pyproject with other provider settings (the watcher loads them)."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.kindgi.pack]\nid = "acme-ops"\n' + providers)
    stamp = pyproject.stat().st_mtime_ns + 1_000_000_000
    os.utime(pyproject, ns=(stamp, stamp))


def test_a_reused_answer_is_judged_by_the_judge_configured_now(tmp_path: Path) -> None:
    judge = OpenAIStub().serve()
    judge.queue_text(FAILS)  # the first judge
    judge.queue_text(PASSES)  # the second: asked once, its verdict kept
    env = {"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": judge.base_url}
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"), env,
                    FUNCTION_MODELS) as (client, ctx):  # fmt: skip
            project = correct_the_answer(client, ctx)
            first = try_version(client, PATH, project, reuse=True)
            with ctx.db.transaction() as conn:  # kept as before, with the first judge's verdict
                conn.execute(
                    "UPDATE kept_answers SET answer = json_set(answer, '$.judged', json(?))",
                    ('{"0": [false, "It does not."]}',),
                )
            configure(tmp_path, FUNCTION_MODELS + '[tool.kindgi-dev.providers.openai]\n'
                      'model = "judge-b"\n')  # fmt: skip
            reused = try_version(client, PATH, project, reuse=True)
            asked_reusing = len(judge.requests)
            again = try_version(client, PATH, project, reuse=True)
            asked_again = len(judge.requests)
    finally:
        judge.stop()
    assert first["result"]["summary"]["corrections"] == {"checked": 1, "passed": 0}
    summary = reused["result"]["summary"]
    assert (summary["reusedAnswers"], summary["judge"]["model"]) == (1, "judge-b")
    assert summary["corrections"] == {"checked": 1, "passed": 1}
    # The same judge on the same answer again: its kept verdict, no call.
    assert again["result"]["summary"]["corrections"] == {"checked": 1, "passed": 1}
    assert (asked_reusing, asked_again) == (2, 2)


def test_an_answer_kept_without_a_judge_is_judged_once_one_is_configured(tmp_path: Path) -> None:
    judge = OpenAIStub().serve()
    judge.queue_text(PASSES)
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"),
                    {"OPENAI_API_KEY": ""}, FUNCTION_MODELS) as (client, ctx):  # fmt: skip
            project = correct_the_answer(client, ctx)
            first = try_version(client, PATH, project, reuse=True)
            configure(tmp_path, FUNCTION_MODELS + '[tool.kindgi-dev.providers.openai]\n'
                      f'base_url = "{judge.base_url}"\n')  # fmt: skip
            reused = try_version(client, PATH, project, reuse=True)
    finally:
        judge.stop()
    before, after = first["result"]["summary"], reused["result"]["summary"]
    assert (before["judge"]["kind"], before["corrections"]["passed"]) == ("deterministic", 0)
    assert (after["judge"]["kind"], after["reusedAnswers"]) == ("model", 1)
    assert after["corrections"] == {"checked": 1, "passed": 1}
    assert len(judge.requests) == 1


def test_a_judge_that_failed_is_asked_again_by_the_next_run(tmp_path: Path) -> None:
    judge = OpenAIStub().serve()  # nothing queued: it answers 500
    env = {"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": judge.base_url}
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"), env,
                    FUNCTION_MODELS) as (client, ctx):  # fmt: skip
            project = correct_the_answer(client, ctx)
            failed = try_version(client, PATH, project, reuse=True)
            asked_failing = len(judge.requests)
            kept = every_row(ctx)["kept_verdicts"]
            judge.queue_text(PASSES)
            reused = try_version(client, PATH, project, reuse=True)
            asked_after = len(judge.requests)
    finally:
        judge.stop()
    assert failed["result"]["summary"]["corrections"] == {"checked": 1, "passed": 0}
    assert kept == []  # its failure is no verdict to keep
    summary = reused["result"]["summary"]
    assert (summary["reusedAnswers"], summary["corrections"]) == (1, {"checked": 1, "passed": 1})
    assert (asked_failing, asked_after) == (1, 2)
