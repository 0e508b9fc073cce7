"""How a flow eval run's replays reach the store: with its page of cases, in its
transaction, as an agent's do (`test_eval_run_pages`), and still read back whole through
the API. Mechanisms, not times (those are row 9 of benchmarks/)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from flow_pack import SUGGEST, flow_served
from starlette.testclient import TestClient
from test_eval_run_pages import _count, _on_eval_thread
from test_flow_eval_runs import build, corrected_flow_runs, try_flow

from kindgi_dev.services.context import Context
from kindgi_dev.services.eval_runs import page

PAGE = 10


def _tried(client: TestClient, ctx: Context, suite_id: str) -> tuple[dict[str, object], list[str]]:
    """Build a suite of every corrected flow run so far and try the flow on it; the eval
    run and the statements its replays ran."""
    project = build(client, suite_id, SUGGEST)
    with _on_eval_thread(ctx) as statements:
        run = try_flow(client, suite_id, project)
    assert run["status"] == "completed", run
    return run, statements


def _reads_of_a_run(statements: list[str]) -> int:
    """How many of the statements read one run back by its id."""
    return sum(1 for sql in statements if "FROM RUNS WHERE ID = " in sql.upper())


def test_a_flow_eval_run_stores_a_page_of_cases_to_a_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 more cases cost 3 more transactions (pages of 10), not 60 (a run opened, then
    ended, each case), and no replay run is written, then updated and read back; each is
    still read whole: its row and its journal, a step a node."""
    monkeypatch.setattr(page, "PAGE_CASES", PAGE)
    monkeypatch.setattr(page, "PAGE_SECONDS", 3600.0)
    with flow_served(tmp_path) as (client, ctx, _pack):
        for _ in range(10):
            corrected_flow_runs(client, SUGGEST)
        _, smaller = _tried(client, ctx, "acme.flow-picks-30")
        for _ in range(10):
            corrected_flow_runs(client, SUGGEST)
        run, larger = _tried(client, ctx, "acme.flow-picks-60")
        replay_id = run["result"]["perCase"][0]["runIds"][0]  # type: ignore[index]
        replay = client.get(f"/v1/runs/{replay_id}").json()
        journal = client.get(f"/v1/runs/{replay_id}/journal").json()["data"]
    assert _count(larger, "BEGIN") - _count(smaller, "BEGIN") == 30 // PAGE
    assert _count(larger, "INSERT INTO RUNS") == 60
    assert _count(larger, "UPDATE RUNS") == 0
    assert _reads_of_a_run(larger) == _reads_of_a_run(smaller)
    assert (replay["status"], replay["flowId"], replay["evalRunId"]) == (
        "completed", SUGGEST, run["runId"])  # fmt: skip
    assert replay["output"]["output"]["articles"]
    assert [(e["kind"], e.get("nodeId")) for e in journal] == [
        ("run.started", None), ("step.completed", "find"), ("run.completed", None)]  # fmt: skip
    assert journal[1]["payload"]["source"] == "recorded"


def test_a_flow_replay_in_flight_when_its_eval_run_is_cancelled_is_stored_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay that has no row yet (its tool call runs live and never answers) is stored
    `cancelled` with its eval run, its journal its start and its cancel, as before."""
    asked = threading.Event()

    async def never(*_: object, **__: object) -> object:
        asked.set()
        await asyncio.sleep(3600)
        raise AssertionError("cancelled before")

    with flow_served(tmp_path) as (client, _ctx, pack):
        corrected_flow_runs(client, SUGGEST)
        project = build(client, "acme.flow-picks", SUGGEST)
        monkeypatch.setattr(pack, "invoke", never)
        body = {"projectId": project, "flowRef": {"flowId": SUGGEST, "version": "0.1.0"},
                "reads": "live"}  # fmt: skip
        started = client.post("/v1/eval-suites/acme.flow-picks/runs", json=body)
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
        assert asked.wait(10)
        cancelled = client.post(f"/v1/eval-runs/{run_id}/cancel")
        replays = client.get("/v1/runs", params={"evalRunId": run_id}).json()["data"]
        journals = [client.get(f"/v1/runs/{r['id']}/journal").json()["data"] for r in replays]
    assert cancelled.json()["status"] == "cancelled"
    assert replays and {r["status"] for r in replays} == {"cancelled"}
    assert {r["flowId"] for r in replays} == {SUGGEST}
    assert all([e["kind"] for e in j] == ["run.started", "run.cancelled"] for j in journals)


def _started_reads(client: TestClient, ctx: Context, suite_id: str) -> list[str]:
    """Build a suite of every corrected flow run so far; the statements starting an eval
    run on it ran (on any thread), the run then finished."""
    project = build(client, suite_id, SUGGEST)
    statements: list[str] = []
    ctx.db.trace(statements.append)
    try:
        body = {"projectId": project, "flowRef": {"flowId": SUGGEST, "version": "0.1.0"}}
        started = client.post(f"/v1/eval-suites/{suite_id}/runs", json=body)
    finally:
        ctx.db.trace(None)
    assert started.status_code == 201, started.text
    try_flow(client, suite_id, project)  # the first one's replays end before the next build
    return statements


def test_starting_on_a_suite_reads_its_cases_runs_a_page_at_a_time(tmp_path: Path) -> None:
    """The past runs 30 more suite cases rest on are read with their tool calls in a few
    statements, not two a case."""
    with flow_served(tmp_path) as (client, ctx, _pack):
        for _ in range(10):
            corrected_flow_runs(client, SUGGEST)
        smaller = _started_reads(client, ctx, "acme.flow-picks-30")
        for _ in range(10):
            corrected_flow_runs(client, SUGGEST)
        larger = _started_reads(client, ctx, "acme.flow-picks-60")
    assert len(larger) - len(smaller) < 10
    assert _reads_of_a_run(larger) == _reads_of_a_run(smaller)
