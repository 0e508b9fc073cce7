"""Trying a flow version on test cases built from its corrected runs, with a tool swapped."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from flow_pack import FIND, QUESTIONS, REFUND, SUGGEST, SUGGEST_AND_LOG, flow_served
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.domain.replay import REFUSED_CHANGES


def corrected_flow_runs(client: TestClient, flow_id: str) -> list[str]:
    """The flow run on each tutorial question, its first article marked right, the rest wrong."""
    run_ids = []
    for question in QUESTIONS:
        run = client.post("/v1/runs", json={"flow": flow_id, "input": {"question": question}})
        assert run.status_code == 201, run.text
        articles = run.json()["output"]["output"]["articles"]
        for rank, article in enumerate(articles):
            body = {"runId": run.json()["id"], "verdict": "yes" if rank == 0 else "no",
                    "item": {"key": article["id"], "pointer": f"/output/articles/{rank}",
                             "rank": rank}}  # fmt: skip
            assert client.post("/v1/judgments", json=body).status_code == 201
        run_ids.append(run.json()["id"])
    return run_ids


def build(client: TestClient, suite_id: str, flow_id: str) -> str:
    project = client.get("/v1/projects/default").json()["id"]
    body = {"version": "1.0.0", "projectId": project, "flowId": flow_id}
    built = client.post(f"/v1/eval-suites/{suite_id}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text
    return str(project)


def try_flow(client: TestClient, suite_id: str, project: str, **more: Any) -> dict[str, Any]:
    body = {"projectId": project, "flowRef": {"flowId": more.pop("flow", SUGGEST),
                                              "version": "0.1.0"}, **more}  # fmt: skip
    started = client.post(f"/v1/eval-suites/{suite_id}/runs", json=body)
    assert started.status_code == 201, started.text
    for _ in range(400):
        run = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


SWAP = {"tools": {FIND: "0.2.0"}}


def test_the_swapped_tool_rates_higher_only_with_live_reads(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, _pack):
        corrected_flow_runs(client, SUGGEST)
        project = build(client, "acme.flow-picks", SUGGEST)
        live = try_flow(client, "acme.flow-picks", project, versions=SWAP, reads="live")
        recorded = try_flow(client, "acme.flow-picks", project, versions=SWAP)
        replay = client.get(f"/v1/runs/{live['result']['perCase'][0]['runIds'][0]}").json()
    summary = live["result"]["summary"]
    assert live["status"] == "completed"
    assert (replay["flowId"], replay["versions"], replay["evalRunId"]) == (
        SUGGEST, SWAP, live["runId"])  # fmt: skip
    assert live["flowRef"] == {"flowId": SUGGEST, "version": "0.1.0"}
    assert live["comparison"]["versions"] == SWAP
    assert summary["candidate"] == {"kind": "flow", "flowId": SUGGEST, "version": "0.1.0",
                                    "versions": SWAP}  # fmt: skip
    assert summary["baseline"] == {"kind": "recorded",
                                   "versions": [{"flowId": SUGGEST, "version": "0.1.0",
                                                 "cases": 3}]}  # fmt: skip
    share = summary["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"], share["n"]) == (0.5, 1, 3)
    assert (summary["cases"], summary["stopped"], summary["refusedWrites"]) == (3, 0, 0)
    tools = live["result"]["perCase"][0]["tools"]
    assert [(t["toolId"], t["toolVersion"], t["source"]) for t in tools] == [
        (FIND, "0.2.0", "live")]  # fmt: skip
    share = recorded["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (0.5, 0.5)
    assert all(c["tools"][0]["source"] == "recorded" for c in recorded["result"]["perCase"])


def test_a_refused_write_stops_the_case_and_leaves_it_out_of_the_metrics(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, ctx, _pack):
        run_ids = corrected_flow_runs(client, SUGGEST_AND_LOG)
        project = build(client, "acme.flow-log-picks", SUGGEST_AND_LOG)
        logged_before = ctx.db.one("SELECT count(*) AS n FROM run_tool_calls WHERE tool_id = ?",
                                   ("acme-ops.log-suggestion",))["n"]  # fmt: skip
        run = try_flow(client, "acme.flow-log-picks", project, flow=SUGGEST_AND_LOG,
                       versions=SWAP, reads="live")  # fmt: skip
        replays = client.get("/v1/runs", params={"evalRunId": run["runId"]}).json()["data"]
    summary = run["result"]["summary"]
    by_case = {c["caseId"]: c for c in run["result"]["perCase"]}
    refund = by_case[run_ids[1]]
    assert refund["stopped"] == {
        "toolId": "acme-ops.log-suggestion",
        "arguments": {"articles": [{"id": "kb-201", "title": "Request a refund"}],
                      "question": REFUND},
        "reason": REFUSED_CHANGES,
    }  # fmt: skip
    assert refund["candidate"] == []
    assert refund["refusedWrites"] == 1
    assert [t["source"] for t in refund["tools"]] == ["live", "refused"]
    assert all("stopped" not in by_case[i] for i in (run_ids[0], run_ids[2]))
    assert (summary["cases"], summary["stopped"], summary["refusedWrites"]) == (3, 1, 1)
    share = summary["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"], share["n"]) == (0.5, 1, 2)
    assert logged_before == 1
    assert sorted(r["status"] for r in replays) == ["completed", "completed", "failed"]


def test_a_swap_the_flow_does_not_use_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, _pack):
        corrected_flow_runs(client, SUGGEST)
        project = build(client, "acme.flow-picks", SUGGEST)
        body = {"projectId": project, "flowRef": {"flowId": SUGGEST, "version": "0.1.0"}}
        unused = client.post("/v1/eval-suites/acme.flow-picks/runs",
                             json={**body, "versions": {"tools": {"acme-ops.article-picker":
                                                                  "0.2.0"}}})  # fmt: skip
        unpublished = client.post(
            "/v1/eval-suites/acme.flow-picks/runs",
            json={**body, "versions": {"tools": {FIND: "0.9.0"}}},
        )
        listed = client.get("/v1/eval-runs").json()["data"]
    assert unused.status_code == 400
    assert unused.json()["error"]["code"] == "validation-failed"
    assert unused.json()["error"]["message"] == (
        "flow acme-ops.suggest-articles 0.1.0 doesn't use acme-ops.article-picker"
    )
    assert unused.json()["error"]["details"]["issues"] == [
        {
            "path": "versions/tools/acme-ops.article-picker",
            "message": "flow acme-ops.suggest-articles 0.1.0 doesn't use acme-ops.article-picker",
        }
    ]
    assert unpublished.status_code == 400
    missing = "tool acme-ops.find-articles has no version 0.9.0"
    assert unpublished.json()["error"]["message"] == missing
    assert listed == []


@pytest.mark.parametrize(
    ("asked", "field"),
    [({"overrides": {"settings": {"acme.weights": {"boost": 2}}}}, "overrides"),
     ({"reuse": True}, "reuse")],
)  # fmt: skip
def test_what_applies_to_an_agent_candidate_only_is_refused_for_a_flow_and_nothing_is_written(
    tmp_path: Path, asked: dict[str, Any], field: str
) -> None:
    """A flow's parts are set with `versions`, and answers are reused for an agent's
    content only (a flow's replays would replay every case anyway): a flow start naming
    settings or prompt overrides, or asking to reuse, is refused before anything is stored,
    and the same start without it runs."""
    with flow_served(tmp_path) as (client, ctx, _pack):
        corrected_flow_runs(client, SUGGEST)
        project = build(client, "acme.flow-picks", SUGGEST)
        before = every_row(Path(ctx.db.path))
        refused = client.post(
            "/v1/eval-suites/acme.flow-picks/runs",
            json={"projectId": project, "flowRef": {"flowId": SUGGEST, "version": "0.1.0"},
                  **asked},
        )  # fmt: skip
        after = every_row(Path(ctx.db.path))
        replayed = try_flow(client, "acme.flow-picks", project, reuse=False)
    error = refused.json()["error"]
    assert (refused.status_code, error["code"], error["details"]["field"]) == (
        400, "validation-failed", field)  # fmt: skip
    assert "applies to an agent candidate" in error["message"]
    assert after == before
    assert replayed["status"] == "completed"
