"""`kindgi eval-runs start <agentId>~<projectId>`: an agent's test set named by its registry
id (as `test-sets list --kind=corrections` prints it) is tried like the agent's own route."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from factories import AGENT, QUESTIONS, served, tutorial_runs
from flow_pack import EXAMPLE
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.domain.test_sets import set_id_of


def correct(client: TestClient, run_ids: dict[str, str]) -> None:
    """The tutorial's corrections: each run's first article right, the other two wrong."""
    for question, run_id in run_ids.items():
        items = [
            {"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
             "verdict": "right" if rank == 0 else "wrong"}
            for rank, a in enumerate(QUESTIONS[question])
        ]  # fmt: skip
        made = client.post("/v1/corrections", json={"runId": run_id, "items": items})
        assert made.status_code == 201, made.text


def finish(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(200):
        run = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def test_the_registry_id_starts_a_run_on_the_agents_test_set(tmp_path: Path) -> None:
    with served(tmp_path, models_file=EXAMPLE / "dev_models.py") as (client, ctx):
        correct(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        set_id = set_id_of(AGENT, project)
        body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.1.0"}}
        started = client.post(f"/v1/eval-suites/{set_id}/runs", json=body)
        assert started.status_code == 201, started.text
        run = finish(client, started.json()["runId"])
        assert run["status"] == "completed"
        assert (run["suiteId"], run["frozenVersion"]["version"]) == (set_id, "1.0.0")
        share = run["result"]["summary"]["metrics"]["weightedYesShare"]
        assert (share["baseline"], share["candidate"], share["n"]) == (1 / 3, 1 / 3, 3)
        listed = client.get("/v1/test-sets", params={"kind": "corrections"}).json()["data"]
        assert set_id in [s["id"] for s in listed]  # frozen by the run, so listed from now on
        again = client.post(f"/v1/eval-suites/{set_id}/runs", json=body)
        assert finish(client, again.json()["runId"])["frozenVersion"]["version"] == "2.0.0"


def test_another_project_an_unknown_one_or_an_unknown_agent_is_refused_and_writes_nothing(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (client, ctx):
        correct(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        other = client.post("/v1/projects", json={"name": "Other", "slug": "other"}).json()["id"]
        before = every_row(Path(ctx.db.path))
        body = {"projectId": other, "agentRef": {"agentId": AGENT}}
        wrong = client.post(f"/v1/eval-suites/{set_id_of(AGENT, project)}/runs", json=body)
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (400, "bad-input")
        assert wrong.json()["error"]["details"]["field"] == "projectId"
        nobody = client.post(
            f"/v1/eval-suites/{set_id_of('acme-ops.nobody', project)}/runs",
            json={"projectId": project, "agentRef": {"agentId": "acme-ops.nobody"}},
        )
        assert (nobody.status_code, nobody.json()["error"]["code"]) == (404, "agent-not-found")
        unknown = str(uuid.uuid4())
        made_up = {"projectId": unknown, "agentRef": {"agentId": AGENT}}
        lost = client.post(f"/v1/eval-suites/{set_id_of(AGENT, project)}/runs", json=made_up)
        assert (lost.status_code, lost.json()["error"]["code"]) == (404, "project-not-found")
        nowhere = client.post(f"/v1/eval-suites/{set_id_of(AGENT, unknown)}/runs", json=body)
        assert (nowhere.status_code, nowhere.json()["error"]["code"]) == (
            404,
            "eval-suite-not-found",
        )
        assert every_row(Path(ctx.db.path)) == before
