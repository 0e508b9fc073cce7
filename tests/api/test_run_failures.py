"""`GET /v1/runs/failures`: a project's failed runs grouped by cause and version (it used to be
swallowed by `/v1/runs/{runId}` as `run-not-found "No run with id failures"`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from factories import AGENT, QUESTIONS, recorded_run, served, turn_output
from kindgi.client._models import RunFailureGroups

from kindgi_dev.services import runs
from kindgi_dev.services.context import Context
from kindgi_dev.store import runs as run_store

PASSWORD = next(iter(QUESTIONS))
WINDOW = {"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"}


def failed_run(
    ctx: Context, code: str | None, at: int, *, version: str = "0.1.0", **kw: str
) -> str:
    """A run of the picker that failed with `code` (None: no code was recorded) on the
    `at`th of January 2026."""
    run_id = recorded_run(ctx, PASSWORD, version=version, finish=False, **kw)
    failure = {"code": code or "run-failed", "message": "It failed."}
    outcome = dataclasses.replace(turn_output(PASSWORD, QUESTIONS[PASSWORD]), failure=failure)
    runs.record_outcome(ctx, run_id, outcome, [], {})
    when = f"2026-01-{at:02d}T00:00:00.000Z"
    run_store.update(ctx.db, run_id, {"completed_at": when, "updated_at": when})
    if code is None:
        run_store.update(ctx.db, run_id, {"failure_code": None})
    return run_id


def test_failures_are_grouped_by_code_and_version_and_counted(tmp_path: Path) -> None:
    with served(tmp_path, versions=("0.1.0", "0.2.0")) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        first = failed_run(ctx, "model-invocation-failed", 2)
        latest = failed_run(ctx, "model-invocation-failed", 5)
        other = failed_run(ctx, "model-invocation-failed", 3, version="0.2.0")
        decided = failed_run(ctx, "hitl-rejected", 4)
        unrecorded = failed_run(ctx, None, 6)
        recorded_run(ctx, PASSWORD)  # completed: not a failure
        failed_run(ctx, "model-invocation-failed", 7, replay_of=first)  # a replay: not counted

        answer = client.get("/v1/runs/failures", params={"projectId": project, **WINDOW})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        RunFailureGroups.model_validate(body)
        assert body["total"] == 5
        subject = {"kind": "agent", "id": AGENT}
        groups = body["groups"]
        assert [(g["code"], g["version"], g["count"], g["exampleRunId"]) for g in groups] == [
            ("model-invocation-failed", "0.1.0", 2, latest),
            ("model-invocation-failed", "0.2.0", 1, other),
        ]  # fmt: skip
        assert all(g["subject"] == subject for g in body["groups"])
        assert (body["groups"][0]["firstSeen"], body["groups"][0]["lastSeen"]) == (
            "2026-01-02T00:00:00.000Z", "2026-01-05T00:00:00.000Z")  # fmt: skip
        assert [(g["code"], g["exampleRunId"]) for g in body["outcomes"]] == [
            ("hitl-rejected", decided)
        ]
        assert [(g.get("code"), g["version"], g["exampleRunId"]) for g in body["unrecorded"]] == [
            (None, "0.1.0", unrecorded)
        ]

        by_code = client.get(
            "/v1/runs/failures", params={"projectId": project, "groupBy": "code", **WINDOW}
        ).json()
        assert [(g["code"], g.get("version"), g["count"]) for g in by_code["groups"]] == [
            ("model-invocation-failed", None, 3)
        ]


def test_a_window_before_the_failures_holds_none(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        failed_run(ctx, "model-invocation-failed", 2)
        window = {"from": "2000-01-01T00:00:00Z", "to": "2001-01-01T00:00:00Z"}
        body = client.get("/v1/runs/failures", params={"projectId": project, **window}).json()
        assert (body["total"], body["groups"], body["outcomes"], body["unrecorded"]) == (
            0, [], [], [])  # fmt: skip
        assert (body["from"], body["to"]) == (
            "2000-01-01T00:00:00.000Z", "2001-01-01T00:00:00.000Z")  # fmt: skip


def test_bad_questions_are_refused_in_the_envelope(tmp_path: Path) -> None:
    with served(tmp_path) as (client, _):
        project = client.get("/v1/projects/default").json()["id"]
        cases = [
            ({**WINDOW}, 400, "validation-failed", "projectId"),
            ({"projectId": project, "from": WINDOW["from"]}, 400, "validation-failed", "to"),
            ({"projectId": project, **WINDOW, "groupBy": "agent"}, 400, "validation-failed",
             "groupBy"),
            ({"projectId": project, "from": WINDOW["to"], "to": WINDOW["from"]}, 400,
             "validation-failed", "to"),
            ({"projectId": "nope", **WINDOW}, 404, "project-not-found", None),
        ]  # fmt: skip
        for params, status, code, field in cases:
            answer = client.get("/v1/runs/failures", params=params)
            assert answer.status_code == status, (params, answer.text)
            error = answer.json()["error"]
            assert error["code"] == code
            if field is not None:
                assert error["details"]["field"] == field
