"""An eval run's event stream says what its answer says: each case, then the whole result."""

from __future__ import annotations

import json
from pathlib import Path

from factories import served, tutorial_runs
from test_eval_runs import PASSWORD, build_suite, correct_tutorial, models_file, try_version


def test_the_events_carry_each_case_and_the_result_as_the_run_answers_them(
    tmp_path: Path,
) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "other-search")) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, {PASSWORD: tutorial_runs(ctx)[PASSWORD]})
        project = client.get("/v1/projects/default").json()["id"]
        assert build_suite(client, "acme.events", project)["caseCount"] == 1
        run = try_version(client, "/v1/eval-suites/acme.events/runs", project)
        stream = client.get(f"/v1/eval-runs/{run['runId']}/events").text
    frames = [
        dict(line.split(": ", 1) for line in block.splitlines())
        for block in stream.strip().split("\n\n")
    ]
    case, end = frames
    assert (case["id"], case["event"]) == (f"{run['runId']}:case:0", "eval-run.case-completed")
    assert json.loads(case["data"]) == {
        "runId": run["runId"],
        "caseIndex": 0,
        **run["result"]["perCase"][0],
    }
    assert (end["id"], end["event"]) == (f"{run['runId']}:terminal", "eval-run.completed")
    assert json.loads(end["data"]) == {
        "runId": run["runId"],
        "status": "completed",
        "result": run["result"],
    }
