"""A flow's agent step at any runnable version of its agent (`versions.agents`), and a flow
baseline that is another version of the flow."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flow_pack import QUESTIONS, example_index, flow_served
from kindgi.client import _models as models
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context

AGENT = "acme-ops.article-picker"
SEARCH = "acme-ops.search-articles"
PICK = "acme-ops.pick-with-agent"
SUITE = "acme.agent-flow-picks"
CONCISE = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the "
    "articles that answer it, most relevant first: one is often enough."
)


def flow(version: str, agent_ref: str) -> dict[str, Any]:
    """A flow of one agent step, whose output is the step's typed answer."""
    return {
        "id": PICK, "version": version, "modulePath": "flows/pick.py",
        "nodes": [{"id": "pick", "kind": "agent", "ref": agent_ref,
                   "inputMapping": {"userMessage": {"path": "runInput.question"}}}],
        "edges": [{"id": "in", "from": "$start", "to": "pick"},
                  {"id": "out", "from": "pick", "to": "$end"}],
        "output": {"mapping": {"output": {"path": "nodeOutputs.pick"}}},
    }  # fmt: skip


def register(ctx: Context, agents: list[dict[str, Any]], flows: list[dict[str, Any]]) -> None:
    data = example_index()
    search = next(t for t in data["tools"] if t["id"] == SEARCH)
    catalog.register(ctx, PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="2",
        tools=[*data["tools"], {**search, "version": "0.9.0"}], agents=agents, flows=flows,
        guardrails=[], file_errors=[], path=Path("index.json"), warnings=[],
    ))  # fmt: skip


@pytest.fixture(scope="module")
def picked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    """Flow 0.1.0 (its step at the agent's latest) run on the tutorial's questions with agent
    0.1.0, corrected and built into a suite; then agent 0.2.0 saved, and flow 0.2.0, which
    pins agent 0.1.0, and agent 0.1.5, whose search version the pack no longer serves."""
    with flow_served(tmp_path_factory.mktemp("flow-agents")) as (client, ctx, _pack):
        first = example_index()["agents"][0]
        register(ctx, [first], [flow("0.1.0", AGENT)])
        for question in QUESTIONS:
            run = client.post("/v1/runs", json={"flow": PICK, "input": {"question": question}})
            assert run.status_code == 201, run.text
            for rank, article in enumerate(run.json()["output"]["output"]["articles"]):
                body = {"runId": run.json()["id"], "verdict": "yes" if rank == 0 else "no",
                        "item": {"key": article["id"], "pointer": f"/output/articles/{rank}",
                                 "rank": rank}}  # fmt: skip
                assert client.post("/v1/judgments", json=body).status_code == 201
        project = client.get("/v1/projects/default").json()["id"]
        body = {"version": "1.0.0", "projectId": project, "flowId": PICK}
        built = client.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
        assert built.status_code == 201, built.text
        concise = {**copy.deepcopy(first), "version": "0.2.0", "instructions": CONCISE}
        gone = {**copy.deepcopy(first), "version": "0.1.5",
                "tools": [{"id": SEARCH, "version": "0.9.0"}]}  # fmt: skip
        register(
            ctx, [first, gone, concise], [flow("0.1.0", AGENT), flow("0.2.0", f"{AGENT}@0.1.0")]
        )
        yield client, ctx, project


def tried(client: TestClient, project: str, version: str, **more: Any) -> dict[str, Any]:
    body = {"projectId": project, "flowRef": {"flowId": PICK, "version": version}, **more}
    started = client.post(f"/v1/eval-suites/{SUITE}/runs", json=body)
    assert started.status_code == 201, started.text
    for _ in range(400):
        run = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
        if run["status"] not in ("pending", "running"):
            assert run["status"] == "completed", run
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def share(run: dict[str, Any]) -> tuple[Any, Any]:
    found = run["result"]["summary"]["metrics"]["weightedYesShare"]
    return found["baseline"], found["candidate"]


def step_version(client: TestClient, run_id: str) -> str:
    """The agent version a flow replay's step ran."""
    journal = client.get(f"/v1/runs/{run_id}/journal").json()["data"]
    return str(next(e for e in journal if e.get("nodeId") == "pick")["payload"]["version"])


def test_an_agent_step_swapped_to_an_older_version_is_scored(picked: Any) -> None:
    client, _, project = picked
    latest = tried(client, project, "0.1.0")
    older = tried(client, project, "0.1.0", versions={"agents": {AGENT: "0.1.0"}})
    assert share(latest) == (pytest.approx(1 / 3), 1)
    assert share(older) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    assert older["result"]["summary"]["candidate"] == {
        "kind": "flow", "flowId": PICK, "version": "0.1.0",
        "versions": {"agents": {AGENT: "0.1.0"}}}  # fmt: skip
    assert older["comparison"]["versions"] == {"agents": {AGENT: "0.1.0"}}
    runs = [case["runIds"][0] for case in older["result"]["perCase"]]
    assert [step_version(client, r) for r in runs] == ["0.1.0"] * 3
    assert step_version(client, latest["result"]["perCase"][0]["runIds"][0]) == "0.2.0"
    models.JudgedComparisonResult.model_validate(older["result"])


def test_a_flow_baseline_is_another_version_of_the_flow(picked: Any) -> None:
    client, _, project = picked
    pinned_alone = tried(client, project, "0.2.0")
    both = tried(client, project, "0.1.0", baseline={"agentId": PICK, "version": "0.2.0"})
    named = tried(client, project, "0.1.0", baseline={"flowId": PICK, "version": "0.2.0"})
    assert share(both) == (share(pinned_alone)[1], 1) == share(named)
    baseline = both["result"]["summary"]["baseline"]
    assert baseline == {"kind": "version", "agentId": PICK, "flowId": PICK, "version": "0.2.0",
                        "via": "explicit"}  # fmt: skip
    case = both["result"]["perCase"][0]
    assert step_version(client, case["baselineReplay"]["runIds"][0]) == "0.1.0"
    assert client.get(f"/v1/runs/{case['baselineReplay']['runIds'][0]}").json()["flowVersion"] == (
        "0.2.0")  # fmt: skip
    parsed = models.JudgedComparisonResult.model_validate(both["result"]).summary.baseline
    assert isinstance(parsed, models.Baseline1) and parsed.version == "0.2.0"


REFUSED = [
    ({"versions": {"agents": {AGENT: "0.1.5"}}}, 400, "versions/agents/acme-ops.article-picker",
     f"agent {AGENT} 0.1.5 can't run: it pins {SEARCH}@0.9.0, which the pack no longer serves."),
    ({"versions": {"agents": {AGENT: "0.7.0"}}}, 400, "versions/agents/acme-ops.article-picker",
     f"agent {AGENT} has no version 0.7.0"),
    ({"baseline": {"agentId": AGENT, "version": "0.1.0"}}, 400, "baseline",
     f"baseline: a flow's baseline is another version of flow {PICK}"),
    ({"baseline": {"agentId": PICK, "version": "0.9.0"}}, 404, None,
     f"Flow {PICK} has no version 0.9.0."),
]  # fmt: skip


@pytest.mark.parametrize(("more", "status", "field", "message"), REFUSED)
def test_a_swap_or_baseline_that_cant_run_is_refused_and_nothing_is_written(
    picked: Any, more: dict[str, Any], status: int, field: str | None, message: str
) -> None:
    client, ctx, project = picked
    before = every_row(Path(ctx.db.path))
    body = {"projectId": project, "flowRef": {"flowId": PICK, "version": "0.1.0"}, **more}
    answer = client.post(f"/v1/eval-suites/{SUITE}/runs", json=body)
    assert every_row(Path(ctx.db.path)) == before
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["message"] == message
    if field is not None:
        assert error["details"]["field"] == field
