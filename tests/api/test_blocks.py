"""Settings blocks (`blocks.*`, `kindgi blocks …`): versions published and read in the
official client 0.1.10's shapes; a run's tools read the versions its agent pins as
`ctx.settings`; a replay whose candidate pins another version runs read-only tools live and
the case is `diverged`, as the 0.3 spec page says."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from factories import AGENT, TITLES, agent_manifest, register_pack, served, tool_manifests
from flow_pack import EXAMPLE
from kindgi.client import Kindgi
from kindgi.client._models import Block, BlockCollectionPage
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.domain.replay import LIVE_SETTINGS
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.runtime.pack_service import InvokeOutcome
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context

WEIGHTS = "acme.weights"
QUESTION = "I forgot my password and can't sign in."
SCHEMA = {"type": "object", "properties": {"top": {"type": "integer", "minimum": 1}},
          "required": ["top"]}  # fmt: skip


class SettingsPack:
    """Stands in for the pack service: the search answers as many articles as
    `ctx.settings["acme.weights"]["top"]` says, and each call's settings are kept."""

    def __init__(self) -> None:
        self.settings: list[Any] = []

    async def invoke(self, tool_id: str, version: str | None, input: Any, **kw: Any) -> Any:
        self.settings.append(kw.get("settings"))
        top = (kw.get("settings") or {}).get(WEIGHTS, {}).get("top", 3)
        found = [{"id": key, "title": title} for key, title in list(TITLES.items())[:top]]
        return InvokeOutcome(ok=True, output={"articles": found})

    async def stop(self) -> None:
        """Nothing runs."""

    def not_ready(self) -> str | None:
        """Always ready."""
        return None

    def tool_manifest(self, tool_id: str, version: str | None = None) -> dict[str, Any] | None:
        """The picker's tools, as the pack would serve them."""
        return next((t for t in tool_manifests() if t["id"] == tool_id), None)


def publish(client: TestClient, version: str, values: dict[str, Any], **more: Any) -> Any:
    project = client.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "id": WEIGHTS, "version": version, "kind": "settings",
            "content": {"values": values, "schema": SCHEMA}, **more}  # fmt: skip
    return client.post("/v1/blocks", json=body)


def pinning_agent(ctx: Context) -> None:
    """The picker at 0.1.0, reading the weights block at ^1.0.0."""
    register_pack(ctx, ())
    index = PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="20260101.2",
        tools=tool_manifests(), flows=[], guardrails=[], file_errors=[],
        path=Path("index.json"), warnings=[],
        agents=[{**agent_manifest("0.1.0"), "settings": [{"id": WEIGHTS, "version": "^1.0.0"}]}],
    )  # fmt: skip
    catalog.register(ctx, index)


def finish(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(200):
        run = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def test_block_versions_are_published_read_and_unregistered(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        kindgi = Kindgi(base_url=str(http.base_url), token=ctx.identity.token, http_client=http)
        assert publish(http, "1.0.0", {"top": 3}).json() == {"blockId": WEIGHTS, "version": "1.0.0"}
        assert publish(http, "1.1.0", {"top": 1}, description="Fewer").status_code == 201
        latest = kindgi.blocks.get(WEIGHTS)
        assert (latest.version, latest.content.values) == ("1.1.0", {"top": 1})  # type: ignore[union-attr]
        Block.model_validate(http.get(f"/v1/blocks/{WEIGHTS}/versions/1.0.0").json())
        versions = http.get(f"/v1/blocks/{WEIGHTS}/versions").json()
        BlockCollectionPage.model_validate(versions)
        assert [v["version"] for v in versions["data"]] == ["1.1.0", "1.0.0"]

        gone = kindgi.blocks.versions.unregister(WEIGHTS, "1.1.0")
        assert (gone.block_id, gone.version, gone.unregistered) == (WEIGHTS, "1.1.0", True)
        assert kindgi.blocks.get(WEIGHTS).version == "1.0.0"
        assert [b["version"] for b in http.get("/v1/blocks").json()["data"]] == ["1.0.0"]
        shown = http.get(f"/v1/blocks/{WEIGHTS}/versions", params={"includeTombstoned": True})
        assert [v.get("unregisteredAt") is not None for v in shown.json()["data"]] == [True, False]
        back = kindgi.blocks.versions.reinstate(WEIGHTS, "1.1.0")
        assert back.was_tombstoned is True
        assert kindgi.blocks.versions.reinstate(WEIGHTS, "1.1.0").was_tombstoned is False
        assert http.get("/v1/blocks", params={"kind": "prompt"}).json()["data"] == []
        assert len(http.get("/v1/blocks", params={"name": "acme."}).json()["data"]) == 1


def test_refused_publishes_write_nothing(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        publish(http, "1.0.0", {"top": 3})
        project = http.get("/v1/projects/default").json()["id"]
        before = every_row(Path(ctx.db.path))
        prompt = {"projectId": project, "id": WEIGHTS, "version": "2.0.0", "kind": "prompt",
                  "content": {"template": "Hi"}}  # fmt: skip
        cases = [
            (publish(http, "1.0.0", {"top": 2}), 409, "block-already-registered", None),
            (publish(http, "1.2.0", {"top": 0}), 400, "validation-failed", "content/values/top"),
            (publish(http, "1.2.0", {}), 400, "validation-failed", "content/values"),
            (publish(http, "one", {"top": 2}), 400, "validation-failed", "version"),
            (http.post("/v1/blocks", json=prompt), 409, "block-kind-mismatch", None),
            (http.post("/v1/blocks", json={**prompt, "id": "acme.p", "content": {}}), 400,
             "validation-failed", "content/template"),
            (http.post("/v1/blocks", json={**prompt, "projectId": "nope"}), 404,
             "project-not-found", None),
        ]  # fmt: skip
        for answer, status, code, field in cases:
            error = answer.json()["error"]
            assert (answer.status_code, error["code"]) == (status, code), answer.text
            if field is not None:
                assert error["details"]["field"] == field
        for path in (f"/v1/blocks/{WEIGHTS}/versions/9.0.0/unregister", "/v1/blocks/nope"):
            answer = http.post(path) if path.endswith("unregister") else http.get(path)
            assert (answer.status_code, answer.json()["error"]["code"]) == (404, "block-not-found")
        assert every_row(Path(ctx.db.path)) == before


def test_a_run_s_tools_read_the_settings_its_agent_pins(tmp_path: Path) -> None:
    with served(tmp_path, (), EXAMPLE / "dev_models.py") as (http, ctx):
        pinning_agent(ctx)
        pack = SettingsPack()
        ctx.runtime = pack  # type: ignore[assignment]
        publish(http, "1.0.0", {"top": 2})
        run = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": QUESTION}})
        assert run.status_code == 201, run.text
        assert pack.settings == [{WEIGHTS: {"top": 2}}]
        assert [a["id"] for a in run.json()["output"]["output"]["articles"]] == ["kb-101", "kb-102"]


def test_a_candidate_pinning_a_changed_block_runs_reads_live_and_diverges(
    tmp_path: Path,
) -> None:
    with served(tmp_path, (), EXAMPLE / "dev_models.py") as (http, ctx):
        pinning_agent(ctx)
        pack = SettingsPack()
        ctx.runtime = pack  # type: ignore[assignment]
        publish(http, "1.0.0", {"top": 3})
        run = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": QUESTION}})
        items = [
            {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"},
            {"key": "kb-102", "pointer": "/output/articles/1", "rank": 1, "verdict": "wrong"},
        ]
        made = http.post("/v1/corrections", json={"runId": run.json()["id"], "items": items})
        assert made.status_code == 201, made.text  # fmt: skip
        project = http.get("/v1/projects/default").json()["id"]
        body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.1.0"}}

        def try_it() -> dict[str, Any]:
            started = http.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
            assert started.status_code == 201, started.text
            return finish(http, started.json()["runId"])

        same = try_it()["result"]
        assert [t["source"] for t in same["perCase"][0]["tools"]] == ["recorded"]
        assert (same["perCase"][0]["diverged"], same["summary"]["diverged"]) == (False, 0)
        assert len(pack.settings) == 1  # only the live run called the tool

        publish(http, "1.1.0", {"top": 1})
        changed = try_it()["result"]
        [tool] = changed["perCase"][0]["tools"]
        assert (tool["source"], tool["reason"]) == ("live", LIVE_SETTINGS)
        assert (changed["perCase"][0]["diverged"], changed["summary"]["diverged"]) == (True, 1)
        assert pack.settings[-1] == {WEIGHTS: {"top": 1}}
        assert changed["perCase"][0]["changes"]["dropped"] == [{"key": "kb-102", "rankBefore": 1}]


def test_a_schema_that_refers_elsewhere_is_refused_not_fetched(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        project = http.get("/v1/projects/default").json()["id"]
        elsewhere = {"$ref": "https://schemas.example/weights.json"}
        body = {"projectId": project, "id": WEIGHTS, "version": "1.0.0", "kind": "settings",
                "content": {"values": {"top": 1}, "schema": elsewhere}}  # fmt: skip
        before = every_row(Path(ctx.db.path))
        answer = http.post("/v1/blocks", json=body)
        assert (answer.status_code, answer.json()["error"]["details"]["field"]) == (
            400, "content/schema")  # fmt: skip
        assert every_row(Path(ctx.db.path)) == before
