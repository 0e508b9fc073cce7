"""`/v1/agents`, `/v1/tools`, `/v1/flows`: versions registered from a real pack index."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.pack import PackIndex, index_pack
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

AGENT = "demo.hello.greeter"
TOOL = "demo.hello.greet"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, pack_writer: Callable[..., Path]) -> PackIndex:
    """The demo pack with the greeter at 1.0.0 and 1.1.0, indexed by the SDK."""
    pack = pack_writer(tmp_path_factory.mktemp("catalog"), agent_versions=("1.1.0", "1.0.0"))
    return asyncio.run(index_pack(pack))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, index: PackIndex) -> Iterator[TestClient]:
    app = create_app(Settings(pack_dir=tmp_path_factory.mktemp("state"), start_pack=False))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        ctx = context_of(app)
        assert catalog.register(ctx, index) == []
        test_client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        yield test_client


@pytest.fixture(scope="module")
def ctx(client: TestClient) -> Context:
    return context_of(client.app)


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and error["requestId"]
    return dict(error)


def test_list_shows_the_latest_version_of_each_agent(client: TestClient) -> None:
    body = client.get("/v1/agents").json()
    assert body["hasMore"] is False and "nextCursor" not in body
    [agent] = body["data"]
    assert (agent["id"], agent["version"], agent["name"]) == (AGENT, "1.1.0", "Greeter")
    assert agent["retrieval"] == [] and agent["guardrails"] == []
    assert agent["tools"] == [{"id": TOOL, "version": "1.0.0"}]
    assert "modulePath" not in agent and "projectId" not in agent


def test_name_filters_by_id_prefix(client: TestClient) -> None:
    assert [a["id"] for a in client.get("/v1/agents?name=demo.hello.").json()["data"]] == [AGENT]
    assert client.get("/v1/agents?name=demo.other").json()["data"] == []


def test_get_and_get_version(client: TestClient) -> None:
    assert client.get(f"/v1/agents/{AGENT}").json()["version"] == "1.1.0"
    older = client.get(f"/v1/agents/{AGENT}/versions/1.0.0")
    assert older.status_code == 200 and older.json()["version"] == "1.0.0"


def test_versions_ascend_by_semver_and_page(client: TestClient) -> None:
    body = client.get(f"/v1/agents/{AGENT}/versions").json()
    assert [a["version"] for a in body["data"]] == ["1.0.0", "1.1.0"]
    first = client.get(f"/v1/agents/{AGENT}/versions?limit=1").json()
    assert [a["version"] for a in first["data"]] == ["1.0.0"] and first["hasMore"] is True
    second = client.get(
        f"/v1/agents/{AGENT}/versions", params={"limit": 1, "cursor": first["nextCursor"]}
    ).json()
    assert [a["version"] for a in second["data"]] == ["1.1.0"]
    assert second["hasMore"] is False and "nextCursor" not in second


def test_unknown_ids_answer_404_in_the_envelope(client: TestClient) -> None:
    error = error_of(client.get("/v1/agents/demo.nope"), 404, "agent-not-found")
    assert error["details"] == {"agentId": "demo.nope"}
    error = error_of(client.get(f"/v1/agents/{AGENT}/versions/9.9.9"), 404, "agent-not-found")
    assert error["details"] == {"agentId": AGENT, "version": "9.9.9"}
    error_of(client.get("/v1/agents/demo.nope/versions"), 404, "agent-not-found")
    error_of(client.get("/v1/flows/demo.flow"), 404, "flow-not-found")
    error = error_of(client.get("/v1/tools/demo.nope"), 404, "tool-not-found")
    assert error["details"] == {"toolId": "demo.nope"}


def test_bad_queries_answer_400(client: TestClient) -> None:
    error_of(client.get("/v1/agents?cursor=%%%"), 400, "bad-input")
    error_of(client.get("/v1/agents?scopeKind=project"), 400, "scope-invalid")
    error_of(client.get(f"/v1/agents/{AGENT}?projectId=not-a-uuid"), 400, "validation-failed")
    assert client.get("/v1/agents?scopeKind=tenant&inherit=false").status_code == 200


def test_reads_need_the_token(client: TestClient) -> None:
    error_of(
        TestClient(client.app, base_url="http://127.0.0.1").get("/v1/agents"), 401, "auth-missing"
    )


def test_tools_carry_their_version(client: TestClient) -> None:
    [tool] = client.get("/v1/tools").json()["data"]
    assert (tool["id"], tool["version"], tool["mutating"]) == (TOOL, "1.0.0", False)
    assert tool["description"] == "Builds a greeting for one person."
    assert "modulePath" not in tool
    assert client.get(f"/v1/tools/{TOOL}/versions/1.0.0").json() == tool


def test_lists_page_by_id(client: TestClient, ctx: Context, index: PackIndex) -> None:
    extra = copy.deepcopy(index.agents[0])
    for suffix in ("a", "b"):
        extra.update(id=f"{AGENT}-{suffix}")
        catalog.register(ctx, _only_agents(index, [dict(extra)]))
    first = client.get("/v1/agents?limit=2").json()
    assert [a["id"] for a in first["data"]] == [AGENT, f"{AGENT}-a"]
    rest = client.get("/v1/agents", params={"limit": 2, "cursor": first["nextCursor"]}).json()
    assert [a["id"] for a in rest["data"]] == [f"{AGENT}-b"] and rest["hasMore"] is False


def test_a_changed_version_is_updated_with_a_warning(ctx: Context, index: PackIndex) -> None:
    changed = copy.deepcopy(index.agents[0])
    changed.update(id=f"{AGENT}-c", instructions="First words.")
    assert catalog.register(ctx, _only_agents(index, [changed])) == []
    changed["instructions"] = "Other words."
    warnings = catalog.register(ctx, _only_agents(index, [changed]))
    assert warnings == [
        f"⚠ agent {AGENT}-c {changed['version']} changed without a new version: "
        "runs recorded under it ran other content"
    ]
    assert catalog.get_agent(ctx, f"{AGENT}-c")["instructions"] == "Other words."


def test_unregistered_versions(client: TestClient, ctx: Context) -> None:
    catalog.unregister(ctx, "agent", AGENT, "1.1.0")
    assert client.get(f"/v1/agents/{AGENT}").json()["version"] == "1.0.0"
    listed = client.get(f"/v1/agents/{AGENT}/versions").json()["data"]
    assert [a["version"] for a in listed] == ["1.0.0"]
    everything = client.get(f"/v1/agents/{AGENT}/versions?includeTombstoned=true").json()["data"]
    assert [("unregisteredAt" in a) for a in everything] == [False, True]
    assert "unregisteredAt" in client.get(f"/v1/agents/{AGENT}/versions/1.1.0").json()

    catalog.unregister(ctx, "tool", TOOL, "1.0.0")
    error = error_of(client.get(f"/v1/tools/{TOOL}"), 410, "tool-gone")
    assert error["details"] == {"toolId": TOOL}
    assert client.get("/v1/tools").json()["data"] == []
    [retired] = client.get("/v1/tools?includeRetired=true").json()["data"]
    assert retired["id"] == TOOL and "unregisteredAt" in retired


def test_openapi_documents_the_reads(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    for kind in ("agents", "flows", "tools"):
        for name in ("list", "get", "listVersions", "getVersion"):
            assert f"{kind}.{name}" in operations
    assert "410" in document["paths"]["/v1/tools/{toolId}"]["get"]["responses"]
    assert "Agent" in document["components"]["schemas"]


def _only_agents(index: PackIndex, agents: list[dict[str, Any]]) -> PackIndex:
    return PackIndex(
        pack_id=index.pack_id,
        pack_version=index.pack_version,
        artifact_version=index.artifact_version,
        tools=[],
        agents=agents,
        flows=[],
        guardrails=[],
        file_errors=[],
        path=index.path,
        warnings=[],
    )
