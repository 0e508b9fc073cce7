"""Cost and usage (`kindgi usage`, the client's `cost.*`): each agent turn's model calls and
tokens, priced where the provider says (a registered provider's metadata; function models are
free), per run, per day and per eval run."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from flow_pack import EXAMPLE
from kindgi.client._models import CostAggregateResult, CostRecordCollectionPage, UsagePage
from starlette.testclient import TestClient
from stubs.openai_stub import OpenAIStub

PASSWORD = next(iter(QUESTIONS))
PRICED = {
    "metadata": {"id": "groq", "region": "us", "defaultModel": "llama-x", "models": [
        {"name": "llama-x", "contextWindow": 8192, "features": ["tool-use"],
         "cost": {"promptUsdPer1kTokens": 0.5, "completionUsdPer1kTokens": 1.5}}]},
    "adapter_id": "@kindgi/adapter-model-openai-compat",
}  # fmt: skip
WINDOW = {"from": "2000-01-01T00:00:00Z", "to": "2000-03-01T00:00:00Z"}


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub().serve()
    yield server
    server.stop()


def priced_runs(http: TestClient, stub: OpenAIStub) -> list[str]:
    """Two turns answered by the registered `groq` (120 + 30 tokens each): their run ids."""
    body = {**PRICED, "adapter_config": {"baseURL": stub.base_url}}
    assert http.post("/v1/providers", json=body).status_code == 201
    ids = []
    for _ in range(2):
        stub.queue_text('{"answer": "Try kb-101.", "output": {"articles": []}}',
                        prompt_tokens=120, completion_tokens=30)  # fmt: skip
        run = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "Hi"}})
        assert run.status_code == 201, run.text
        ids.append(run.json()["id"])
    return ids


def test_cost_records_price_each_turn_where_the_provider_says(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    with served(tmp_path) as (http, ctx):
        free = recorded_run(ctx, PASSWORD)  # the function models: two calls, no tokens
        first, second = priced_runs(http, stub)
        page = http.get("/v1/cost/records").json()
        CostRecordCollectionPage.model_validate(page)
        assert [r["runId"] for r in page["data"]] == [second, first, free]
        record = page["data"][0]
        assert (record["category"], record["providerId"], record["quantity"], record["unit"]) == (
            "llm.inference", "groq", 150, "tokens")  # fmt: skip
        assert record["usage"] == {"promptTokens": 120, "completionTokens": 30}
        assert (record["costUsd"], record["metrics"]) == (0.105, {"calls": 1})
        assert (record["model"], record["servedModel"]) == ("llama-x", "gpt-4o-mini-2024-07-18")
        assert (page["data"][2]["providerId"], page["data"][2]["metrics"]) == (
            "function", {"calls": 2})  # fmt: skip
        assert "costUsd" not in page["data"][2]  # the factories' run names no function model
        one = http.get(f"/v1/cost/records/{record['id']}").json()
        assert one == record
        by_run = http.get("/v1/cost/records", params={"runId": first}).json()["data"]
        assert [r["runId"] for r in by_run] == [first]
        assert http.get("/v1/cost/records", params={"category": "storage.write"}).json()[
            "data"] == []  # fmt: skip
        nope = http.get("/v1/cost/records/llm-nope")
        assert (nope.status_code, nope.json()["error"]["code"]) == (404, "cost-record-not-found")


def test_the_aggregate_sums_cost_and_tokens_by_provider_and_day(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    with served(tmp_path) as (http, ctx):
        recorded_run(ctx, PASSWORD)
        priced_runs(http, stub)
        answer = http.get("/v1/cost/aggregate", params={"groupBy": "providerId"})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        CostAggregateResult.model_validate(body)
        assert [(g["key"], g["count"], g["totalUsd"]) for g in body["groups"]] == [
            ({"providerId": "groq"}, 2, 0.21), ({"providerId": "function"}, 1, 0)]  # fmt: skip
        assert (body["totalUsd"], body["totalRecords"], body["groupBy"]) == (
            0.21, 3, ["providerId"])  # fmt: skip
        assert body["tokens"] == {"prompt": 240, "completion": 60, "cacheRead": 0,
                                  "cacheWrite": 0, "reasoning": 0}  # fmt: skip
        days = http.get("/v1/cost/aggregate", params={"groupBy": "day,model"}).json()["groups"]
        assert [sorted(g["key"]) for g in days] == [["day", "model"]] * len(days)
        limited = http.get("/v1/cost/aggregate", params={"groupBy": "runId", "limit": 1}).json()
        shown = (len(limited["groups"]), limited["totalGroups"], limited["truncated"])
        assert shown == (1, 3, True)
        for params, field in (({"groupBy": "colour"}, "groupBy"),
                              ({"groupBy": "day", "from": WINDOW["from"]}, "to")):  # fmt: skip
            refused = http.get("/v1/cost/aggregate", params=params)
            assert (refused.status_code, refused.json()["error"]["details"]["field"]) == (
                400, field)  # fmt: skip


def test_usage_counts_runs_and_tokens_by_kind_and_class(tmp_path: Path, stub: OpenAIStub) -> None:
    with served(tmp_path) as (http, ctx):
        priced_runs(http, stub)
        recorded_run(ctx, PASSWORD, replay_of=recorded_run(ctx, PASSWORD))
        window = {"from": "2000-01-01T00:00:00Z", "to": "2000-04-01T00:00:00Z"}
        assert http.get("/v1/usage", params=window).json()["data"] == []
        now = time.gmtime()
        month = {"from": f"{now.tm_year}-{now.tm_mon:02d}-01T00:00:00Z",
                 "to": _next_month(now.tm_year, now.tm_mon)}  # fmt: skip
        body = http.get("/v1/usage", params={**month, "groupBy": "kind,class"}).json()
        UsagePage.model_validate(body)
        counted = {(g["kind"], g["class"]): (g["count"], g["quantity"]) for g in body["data"]}
        assert counted[("run.started", "staging")] == (3, 3)
        assert counted[("run.started", "replay")] == (1, 1)
        assert counted[("llm.inference", "staging")] == (3, 300)
        tokens = http.get("/v1/usage", params={**month, "kind": "llm.inference",
                                               "groupBy": "agent"}).json()["data"]  # fmt: skip
        assert [(g["agentId"], g["count"], g["quantity"]) for g in tokens] == [(AGENT, 4, 300)]
        long = http.get("/v1/usage", params={"from": "2026-01-01T00:00:00Z",
                                             "to": "2026-06-01T00:00:00Z"})  # fmt: skip
        assert (long.status_code, long.json()["error"]["details"]["field"]) == (400, "to")
        bad = http.get("/v1/usage", params={**month, "groupBy": "colour"})
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "validation-failed")


def _next_month(year: int, month: int) -> str:
    return f"{year + month // 12}-{month % 12 + 1:02d}-01T00:00:00Z"


def finish(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(200):
        run = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def test_an_eval_run_s_summary_says_what_its_replays_cost(tmp_path: Path) -> None:
    with served(tmp_path, models_file=EXAMPLE / "dev_models.py") as (http, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
        made = http.post("/v1/corrections", json={"runId": run_id, "items": [item]})
        assert made.status_code == 201
        project = http.get("/v1/projects/default").json()["id"]
        body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.1.0"}}
        started = http.post(f"/v1/agents/{AGENT}/test-set/runs", json=body).json()
        summary = finish(http, started["runId"])["result"]["summary"]
        assert summary["cost"] == {"modelCalls": 2, "tokens": {"prompt": 0, "completion": 0},
                                   "costUsd": 0}  # fmt: skip
