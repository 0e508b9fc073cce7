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


def test_a_flow_with_broken_wiring_in_a_loop_body_is_not_registered(tmp_path: Path) -> None:
    from kindgi_dev.services.catalog import flow_problem

    entry = {"id": "acme-ops.each", "version": "0.1.0", "modulePath": "flows/each.py",
             "nodes": [{"id": "loop1", "kind": "loop", "body": {
                 "nodes": [{"id": "find", "kind": "tool", "ref": "acme-ops.find-articles"}],
                 "edges": [{"id": "in", "from": "$loop-start", "to": "ghost"}]}}],
             "edges": [{"id": "s", "from": "$start", "to": "loop1"}]}  # fmt: skip
    assert flow_problem(entry) == (
        "✗ flows/each.py: flow acme-ops.each 0.1.0 is not registered: "
        "in loop loop1: edge in goes to ghost, which is not a node; "
        "in loop loop1: node find has no edge into it"
    )


def test_an_agent_node_runs_a_turn_and_its_calls_replay_from_the_recording(
    tmp_path: Path,
) -> None:
    from flow_pack import PASSWORD, example_index

    from kindgi_dev.runtime.pack import PackIndex
    from kindgi_dev.services import catalog

    data = example_index()
    picker = {
        "id": "acme-ops.pick-with-agent", "version": "0.1.0", "modulePath": "flows/p.py",
        "nodes": [{"id": "pick", "kind": "agent", "ref": "acme-ops.article-picker",
                   "inputMapping": {"userMessage": {"path": "runInput.question"}}}],
        "edges": [{"id": "in", "from": "$start", "to": "pick"},
                  {"id": "out", "from": "pick", "to": "$end"}],
        "output": {"mapping": {"output": {"path": "nodeOutputs.pick"}}},
    }  # fmt: skip
    with flow_served(tmp_path) as (client, ctx, pack):
        catalog.register(ctx, PackIndex(
            pack_id="acme-ops", pack_version="0.1.0", artifact_version="1", tools=data["tools"],
            agents=data["agents"], flows=[picker], guardrails=[], file_errors=[],
            path=Path("index.json"), warnings=[],
        ))  # fmt: skip
        run = client.post("/v1/runs", json={"flow": picker["id"],
                                            "input": {"question": PASSWORD}}).json()  # fmt: skip
        step = client.get(f"/v1/runs/{run['id']}/journal").json()["data"][1]
        for rank, article in enumerate(run["output"]["output"]["articles"]):
            body = {"runId": run["id"], "verdict": "yes" if rank == 0 else "no",
                    "item": {"key": article["id"], "pointer": f"/output/articles/{rank}",
                             "rank": rank}}  # fmt: skip
            assert client.post("/v1/judgments", json=body).status_code == 201
        project = client.get("/v1/projects/default").json()["id"]
        built = client.post("/v1/eval-suites/acme.agent-flow/versions/from-judgments",
                            json={"version": "1.0.0", "projectId": project,
                                  "flowId": picker["id"]})  # fmt: skip
        assert built.status_code == 201, built.text
        started = client.post(
            "/v1/eval-suites/acme.agent-flow/runs",
            json={"projectId": project, "flowRef": {"flowId": picker["id"], "version": "0.1.0"}},
        )
        for _ in range(200):
            tried = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
            if tried["status"] != "running":
                break
            time.sleep(0.05)
    assert run["status"] == "completed"
    assert [a["id"] for a in run["output"]["output"]["articles"]] == ["kb-101", "kb-102", "kb-103"]
    assert (step["nodeId"], step["payload"]["agentId"], step["payload"]["version"]) == (
        "pick", "acme-ops.article-picker", "0.1.0")  # fmt: skip
    assert [c["toolId"] for c in step["payload"]["toolCalls"]] == ["acme-ops.search-articles"]
    assert len(pack.calls) == 1
    case = tried["result"]["perCase"][0]
    assert [(t["toolId"], t["source"]) for t in case["tools"]] == [
        ("acme-ops.search-articles", "recorded")]  # fmt: skip
    share = tried["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (1 / 3, 1 / 3)
    assert tried["result"]["summary"]["sampling"]["models"][0]["providerId"] == "function"


def test_a_dry_flow_run_runs_reads_and_stops_at_the_first_write(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _, pack):
        read_only = client.post("/v1/runs", json={"flow": SUGGEST, "input": {"question": PACKAGE},
                                                  "options": {"dryRun": True}})  # fmt: skip
        writes = client.post("/v1/runs", json={"flow": SUGGEST_AND_LOG,
                                               "input": {"question": REFUND},
                                               "options": {"dryRun": True}})  # fmt: skip
        listed = client.get("/v1/runs").json()["data"]
        with_dry = client.get("/v1/runs", params={"includeDryRuns": "true"}).json()["data"]
    assert (read_only.status_code, read_only.json()["dryRun"]) == (201, True)
    assert read_only.json()["status"] == "completed"
    assert writes.status_code == 422
    assert writes.json()["error"]["message"] == (
        "Stopped at a tool call the dry run refused: acme-ops.log-suggestion: "
        "dry run: this call changes things, so it was not carried out"
    )
    assert [c[0] for c in pack.calls] == [FIND, FIND]
    assert listed == []
    assert len(with_dry) == 2
