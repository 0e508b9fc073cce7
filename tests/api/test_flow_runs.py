"""Flow runs through the API: the flow's output, a journal step per node, sync and async."""

from __future__ import annotations

import time
from pathlib import Path

from flow_pack import FIND, PACKAGE, REFUND, SUGGEST, SUGGEST_AND_LOG, flow_served

from kindgi_dev.domain.pointers import resolve


def test_a_flow_run_answers_with_the_flows_output_and_a_step_per_node(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, pack):
        answer = client.post("/v1/runs", json={"flow": SUGGEST_AND_LOG,
                                               "input": {"question": REFUND}})  # fmt: skip
        run = answer.json()
        journal = client.get(f"/v1/runs/{run['id']}/journal").json()["data"]
    assert answer.status_code == 201
    assert (run["flowId"], run["flowVersion"], run["status"]) == (
        SUGGEST_AND_LOG, "0.1.0", "completed")  # fmt: skip
    assert "agent" not in run
    articles = [{"id": "kb-201", "title": "Request a refund"},
                {"id": "kb-203", "title": "Cancel an order"}]  # fmt: skip
    assert run["output"] == {"output": {"articles": articles}}
    assert resolve(run, "/output/output/articles/0") == articles[0]
    assert [(e["kind"], e.get("nodeId")) for e in journal] == [
        ("run.started", None), ("step.completed", "find"), ("step.completed", "log"),
        ("run.completed", None)]  # fmt: skip
    find = journal[1]["payload"]
    assert find == {"kind": "tool", "toolId": FIND, "version": "0.1.0",
                    "input": {"question": REFUND}, "output": {"articles": articles},
                    "source": "live"}  # fmt: skip
    assert journal[2]["payload"]["input"] == {"articles": articles, "question": REFUND}
    log = ("acme-ops.log-suggestion", "0.1.0")
    assert [(c[0], c[1]) for c in pack.calls] == [(FIND, "0.1.0"), log]


def test_a_branch_whose_when_does_not_hold_is_skipped(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, pack):
        run = client.post("/v1/runs", json={"flow": SUGGEST_AND_LOG,
                                            "input": {"question": PACKAGE}}).json()  # fmt: skip
        journal = client.get(f"/v1/runs/{run['id']}/journal").json()["data"]
    assert [(e["kind"], e.get("nodeId")) for e in journal] == [
        ("run.started", None), ("step.completed", "find"), ("step.skipped", "log"),
        ("run.completed", None)]  # fmt: skip
    assert [c[0] for c in pack.calls] == [FIND]


def test_without_wait_the_run_answers_202_and_finishes_in_the_background(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, _pack):
        answer = client.post("/v1/runs", json={"flow": SUGGEST, "flowVersion": "0.1.0",
                                               "input": {"question": PACKAGE},
                                               "options": {"wait": False}})  # fmt: skip
        run = answer.json()
        for _ in range(100):
            run = client.get(f"/v1/runs/{run['id']}").json()
            if run["status"] != "running":
                break
            time.sleep(0.02)
    assert answer.status_code == 202
    assert answer.json()["status"] == "running"
    assert run["status"] == "completed"
    assert [a["id"] for a in run["output"]["output"]["articles"]] == ["kb-301", "kb-303"]


def test_an_unknown_flow_or_version_is_404_and_nothing_is_written(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, _pack):
        unknown = client.post("/v1/runs", json={"flow": "acme-ops.nope", "input": {}})
        version = client.post("/v1/runs", json={"flow": SUGGEST, "flowVersion": "9.9.9",
                                                "input": {}})  # fmt: skip
        listed = client.get("/v1/runs").json()["data"]
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "flow-not-found")
    assert (version.status_code, version.json()["error"]["code"]) == (404, "flow-not-found")
    assert listed == []


def test_a_flow_with_a_node_kind_kindgi_dev_does_not_run_is_not_registered(tmp_path: Path) -> None:
    from kindgi_dev.services.catalog import flow_problem

    entry = {"id": "acme-ops.each", "version": "0.1.0", "modulePath": "flows/each.py",
             "nodes": [{"id": "loop1", "kind": "loop"}],
             "edges": [{"id": "s", "from": "$start", "to": "loop1"}]}  # fmt: skip
    assert flow_problem(entry) == (
        "✗ flows/each.py: flow acme-ops.each 0.1.0 is not registered: "
        "node loop1 is a loop node, which kindgi dev doesn't run yet"
    )
