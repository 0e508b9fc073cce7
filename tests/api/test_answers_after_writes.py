"""Issue 22, point 4: a request answers 2xx with what it stored, or an error with nothing stored.

A write's answer is rendered inside its transaction, so an answer that can't be rendered
(here: the renderer made to fail, as a stored value it can't write would make it) rolls
the write back; and a streamed answer sent with an `Idempotency-Key` is kept whole and
replayed, not answered 500 after the write took effect.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, served, tutorial_runs
from starlette.testclient import TestClient
from tables import every_row
from test_eval_runs import SLOW_MODELS, build_suite, correct_tutorial

from kindgi_dev.api import routing
from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    with served(tmp_path_factory.mktemp("after-writes")) as (client, ctx):
        runs = tutorial_runs(ctx)
        yield client, ctx, runs[PASSWORD]


def unrenderable(endpoint: Any, result: object) -> Any:
    """What rendering does with a stored value JSON can't hold (a NaN, say)."""
    raise ValueError("Out of range float values are not JSON compliant")


def correction(run_id: str) -> dict[str, Any]:
    article = QUESTIONS[PASSWORD][0]
    return {"runId": run_id, "items": [{"key": article, "pointer": "/output/articles/0",
                                        "rank": 0, "verdict": "right"}]}  # fmt: skip


Send = Callable[[TestClient, str], Any]
WRITES: dict[str, Send] = {
    "projects.create": lambda c, run: c.post("/v1/projects", json={"name": "P", "slug": "p"}),
    "judgeClasses.create": lambda c, run: c.post(
        "/v1/judge-classes", json={"scope": {"kind": "tenant"}, "name": "leads", "weight": 2}
    ),
    "judgments.create": lambda c, run: c.post("/v1/judgments", json={
        "runId": run, "verdict": "yes",
        "item": {"key": QUESTIONS[PASSWORD][1], "pointer": "/output/articles/1", "rank": 1}}),
    "corrections.create": lambda c, run: c.post("/v1/corrections", json=correction(run)),
    "agents.testSet.freeze": lambda c, run: c.post(f"/v1/agents/{AGENT}/test-set/freeze"),
}  # fmt: skip
"""Writes by plain-function handlers (a thread's, or the event loop's when no write is in
flight), each sent once with rendering failing and once as usual."""


@pytest.mark.parametrize("name", list(WRITES))
def test_a_write_whose_answer_fails_to_render_stores_nothing(
    app: Any, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, ctx, run_id = app
    if name == "agents.testSet.freeze":  # a set to freeze needs a case
        assert client.post("/v1/corrections", json=correction(run_id)).status_code in (200, 201)
    before = every_row(Path(ctx.db.path))
    with monkeypatch.context() as patched:
        patched.setattr(routing, "render", unrenderable)
        failed = WRITES[name](client, run_id)
    assert failed.status_code == 500, failed.text
    assert failed.json()["error"]["code"] == "internal-server-error"
    assert every_row(Path(ctx.db.path)) == before, "the write was rolled back with its answer"
    made = WRITES[name](client, run_id)
    assert made.status_code in (200, 201), made.text
    assert every_row(Path(ctx.db.path)) != before, "the same request, rendered, is a write"


def test_a_correction_changed_whose_answer_fails_keeps_its_old_status(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, ctx, run_id = app
    made = client.post("/v1/corrections", json=correction(run_id))
    assert made.status_code in (200, 201), made.text
    correction_id = made.json()["id"]
    before = every_row(Path(ctx.db.path))
    with monkeypatch.context() as patched:
        patched.setattr(routing, "render", unrenderable)
        failed = client.patch(f"/v1/corrections/{correction_id}", json={"status": "wont-fix"})
    assert failed.status_code == 500
    assert every_row(Path(ctx.db.path)) == before
    assert client.get(f"/v1/corrections/{correction_id}").json()["status"] != "wont-fix"


def test_an_eval_run_whose_start_fails_to_answer_is_not_stored_and_never_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(tmp_path) as (client, ctx):
        runs = tutorial_runs(ctx)
        assert client.post("/v1/corrections", json=correction(runs[PASSWORD])).status_code == 201
        project = client.get("/v1/projects/default").json()["id"]
        body = {"agentRef": {"agentId": AGENT, "version": "0.1.0"}, "projectId": project}
        before = every_row(Path(ctx.db.path))
        with monkeypatch.context() as patched:
            patched.setattr(routing, "render", unrenderable)
            failed = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
        time.sleep(0.3)  # an executor started anyway would have written by now
        assert failed.status_code == 500
        assert every_row(Path(ctx.db.path)) == before, "no frozen version, no eval run, no replay"
        assert ctx.eval_tasks == {}
        started = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
        assert started.status_code == 201, started.text
        run = wait_until_ended(client, started.json()["runId"])
    assert run["status"] == "completed", "its executor began once the start was committed"
    assert run["result"]["summary"]["cases"] == 1


def wait_until_ended(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(300):
        run: dict[str, Any] = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return run
        time.sleep(0.05)
    raise AssertionError(f"eval run {run_id} did not end")


def test_a_streamed_cancel_with_an_idempotency_key_is_kept_and_replayed(tmp_path: Path) -> None:
    slow = tmp_path / "slow_models.py"
    slow.write_text(SLOW_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), slow) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        build_suite(client, "acme.all", project)
        body = {"agentRef": {"agentId": AGENT, "version": "0.2.0"}, "projectId": project}
        started = client.post("/v1/eval-suites/acme.all/runs", json=body)
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
        deadline = time.monotonic() + 10
        while not client.get(f"/v1/eval-runs/{run_id}").json()["progress"]["casesDone"]:
            assert time.monotonic() < deadline, "no case finished"
            time.sleep(0.05)
        key = {"Idempotency-Key": "cancel-1"}
        cancelled = client.post(f"/v1/eval-runs/{run_id}/cancel", headers=key)
        kept = every_row(Path(ctx.db.path))
        again = client.post(f"/v1/eval-runs/{run_id}/cancel", headers=key)
        unkeyed = client.post(f"/v1/eval-runs/{run_id}/cancel")
        read = client.get(f"/v1/eval-runs/{run_id}").json()
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["result"]["perCase"], "its finished cases, written a page at a time"
    assert cancelled.json() == read
    assert again.status_code == 200
    assert again.headers["x-idempotent-replay"] == "true"
    assert again.content == cancelled.content
    assert every_row(Path(ctx.db.path)) == kept, "the replay wrote nothing"
    assert unkeyed.status_code == 409
    assert unkeyed.json()["error"]["code"] == "eval-run-already-terminal"
