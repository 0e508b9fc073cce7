"""Every indexed agent version stays runnable: its instructions, its tools at the versions it
pinned, the version the function model is told; one whose tool version is gone is refused."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from flow_pack import PASSWORD, example_index, flow_served
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context

AGENT = "acme-ops.article-picker"
SEARCH = "acme-ops.search-articles"
CONCISE = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the "
    "articles that answer it, most relevant first: one is often enough."
)
GONE = f"{AGENT} 0.3.0 can't run: it pins {SEARCH}@0.9.0, which the pack no longer serves."


def register_versions(ctx: Context) -> None:
    """0.2.0 (concise instructions) and 0.3.0, which pins a search version the pack doesn't
    serve (registered by an earlier save, since removed from the pack), beside 0.1.0."""
    data = example_index()
    first = data["agents"][0]
    concise = {**copy.deepcopy(first), "version": "0.2.0", "instructions": CONCISE}
    pinned_gone = copy.deepcopy(concise)
    pinned_gone["version"] = "0.3.0"
    pinned_gone["tools"] = [{"id": SEARCH, "version": "0.9.0"}, *first["tools"][1:]]
    search = next(t for t in data["tools"] if t["id"] == SEARCH)
    catalog.register(ctx, PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="2",
        tools=[*data["tools"], {**search, "version": "0.9.0"}],
        agents=[first, concise, pinned_gone], flows=[], guardrails=[], file_errors=[],
        path=Path("index.json"), warnings=[],
    ))  # fmt: skip


def start(client: TestClient, version: str | None) -> Any:
    body: dict[str, Any] = {"agent": AGENT, "input": {"userMessage": PASSWORD}}
    if version is not None:
        body["agentVersion"] = version
    return client.post("/v1/runs", json=body)


def articles(run: dict[str, Any]) -> list[str]:
    return [a["id"] for a in run["output"]["output"]["articles"]]


def test_an_older_version_runs_as_it_was_indexed(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, ctx, pack):
        register_versions(ctx)
        older = start(client, "0.1.0")
        newer = start(client, "0.2.0")
    assert (older.status_code, newer.status_code) == (201, 201)
    assert (older.json()["agent"]["version"], articles(older.json())) == (
        "0.1.0", ["kb-101", "kb-102", "kb-103"])  # fmt: skip
    assert (newer.json()["agent"]["version"], articles(newer.json())) == ("0.2.0", ["kb-101"])
    assert pack.calls == [
        (SEARCH, "0.1.0", {"query": PASSWORD}),
        (SEARCH, "0.1.0", {"query": PASSWORD.removesuffix(".")}),
    ]


def test_a_version_whose_pinned_tool_is_gone_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    with flow_served(tmp_path) as (client, ctx, pack):
        register_versions(ctx)
        before = every_row(Path(ctx.db.path))
        named = start(client, "0.3.0")
        latest = start(client, None)
        after = every_row(Path(ctx.db.path))
    for answer in (named, latest):
        assert answer.status_code == 409, answer.text
        error = answer.json()["error"]
        assert (error["code"], error["message"]) == ("version-not-runnable", GONE)
        assert error["details"]["missing"] == [f"{SEARCH}@0.9.0"]
    assert after == before
    assert pack.calls == []


def test_a_tool_version_the_pack_stopped_serving_is_gone(tmp_path: Path) -> None:
    """Registered versions stay readable after the pack drops them, but don't run."""
    with flow_served(tmp_path) as (client, ctx, pack):
        register_versions(ctx)
        del pack.tools[(SEARCH, "0.1.0")]
        refused = start(client, "0.1.0")
        readable = client.get(f"/v1/tools/{SEARCH}/versions/0.1.0")
    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == (
        f"{AGENT} 0.1.0 can't run: it pins {SEARCH}@0.1.0, which the pack no longer serves."
    )
    assert readable.status_code == 200
