"""Issue 10: hand-made bad inputs each get a 400 in the envelope, and nothing is written."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import QUESTIONS, served, tutorial_runs
from serving import serve_app
from starlette.testclient import TestClient

from kindgi_dev.api.responses import dumps
from kindgi_dev.app import create_app
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

PASSWORD = next(iter(QUESTIONS))
HUGE = 2**64


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    with served(tmp_path_factory.mktemp("hardening")) as (client, ctx):
        runs = tutorial_runs(ctx)
        made = client.post("/v1/judge-classes", json={"scope": {"kind": "tenant"},
                                                      "name": "expert", "weight": 2})  # fmt: skip
        assert made.status_code == 201
        yield client, ctx, runs[PASSWORD]


def everything(ctx: Context) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table: a refused request must leave all of it as it was."""
    tables = [r["name"] for r in ctx.db.all("SELECT name FROM sqlite_master WHERE type='table'")]
    return {t: [tuple(r) for r in ctx.db.all(f'SELECT * FROM "{t}"')] for t in tables}


def refused(answer: Any, field: str | None = None, status: int = 400) -> dict[str, Any]:
    """The answer is an enveloped 400 (`bad-input` or its `validation-failed`) naming `field`."""
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] in ("bad-input", "validation-failed")
    assert error["requestId"] == answer.headers["x-request-id"]
    if field is not None:
        assert error["details"]["field"] == field
    return dict(error)


def class_id(client: TestClient) -> str:
    return str(client.get("/v1/judge-classes").json()["data"][0]["id"])


def test_a_forged_cursor_is_refused_on_every_list(app: Any) -> None:
    client, ctx, run_id = app
    lists = ["/v1/runs", "/v1/corrections", "/v1/judgments", "/v1/eval-runs", "/v1/projects",
             "/v1/judge-classes", "/v1/conversations", f"/v1/runs/{run_id}/journal",
             "/v1/agents", "/v1/eval-suites"]  # fmt: skip
    before = everything(ctx)
    for path in lists:
        for forged in ("WzFd", "WyJ4IiwxXQ", "WzFd.AAAAAAAAAAAAAAAAAAAAAA", "%%%", "J.\u00f1Q"):
            refused(client.get(path, params={"cursor": forged, "limit": 1}), "cursor")
    first = client.get("/v1/runs", params={"limit": 1}).json()
    second = client.get("/v1/runs", params={"limit": 1, "cursor": first["nextCursor"]})
    assert second.status_code == 200
    assert second.json()["data"][0]["id"] != first["data"][0]["id"]
    assert everything(ctx) == before


def test_deep_nesting_is_refused_before_parsing(app: Any) -> None:
    client, ctx, run_id = app
    before = everything(ctx)
    deep = b'{"name":' + b"[" * 5000 + b"]" * 5000 + b"}"
    refused(client.post("/v1/projects", content=deep, headers={"content-type": "application/json"}))
    args: Any = "x"
    for _ in range(300):
        args = {"a": args}
    decisions = {"shouldCall": [{"toolId": "acme-ops.search-articles", "args": args}]}
    refused(client.post("/v1/corrections", json={"runId": run_id, "decisions": decisions}))
    assert everything(ctx) == before


def test_an_explicit_null_weight_is_refused(app: Any) -> None:
    client, ctx, _ = app
    before = everything(ctx)
    refused(client.patch(f"/v1/judge-classes/{class_id(client)}", json={"weight": None}), "weight")
    assert everything(ctx) == before


def test_a_suite_run_needs_its_project(app: Any) -> None:
    client, ctx, _ = app
    before = everything(ctx)
    body = {"agentRef": {"agentId": "acme-ops.article-picker"}}
    refused(client.post("/v1/eval-suites/acme.one/runs", json=body), "projectId")
    nulled = {**body, "projectId": None}
    refused(client.post("/v1/eval-suites/acme.one/runs", json=nulled), "projectId")
    document = client.get("/openapi.json").json()
    operation = document["paths"]["/v1/eval-suites/{suiteId}/runs"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[1]
    assert "projectId" in document["components"]["schemas"][name]["required"]
    assert everything(ctx) == before


def test_integers_beyond_64_bits_are_refused(app: Any) -> None:
    client, ctx, run_id = app
    before = everything(ctx)
    refused(client.get(f"/v1/runs/{run_id}/journal", params={"since": str(HUGE)}), "since")
    item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": HUGE, "verdict": "right"}
    refused(client.post("/v1/corrections", json={"runId": run_id, "items": [item]}),
            "items/0/rank")  # fmt: skip
    judged = {"runId": run_id, "verdict": "yes", "item": {**item, "rank": -HUGE}}
    refused(client.post("/v1/judgments", json=judged), "item/rank")
    assert everything(ctx) == before


def test_non_finite_numbers_are_refused_and_never_written(app: Any) -> None:
    client, ctx, _ = app
    before = everything(ctx)
    path = f"/v1/judge-classes/{class_id(client)}"
    for text in (b'{"weight": Infinity}', b'{"weight": NaN}', b'{"weight": 1e999}'):
        answer = client.patch(path, content=text, headers={"content-type": "application/json"})
        refused(answer)
    assert dumps({"weight": float("inf"), "share": float("nan")}) == b'{"weight":null,"share":null}'
    assert dumps({"reason": "a\ud800b"}) == '{"reason":"a\ufffdb"}'.encode()
    assert everything(ctx) == before


def test_booleans_are_not_numbers_nor_numbers_booleans(app: Any) -> None:
    client, ctx, run_id = app
    before = everything(ctx)
    refused(client.patch(f"/v1/judge-classes/{class_id(client)}", json={"weight": False}),
            "weight")  # fmt: skip
    item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": False, "verdict": "right"}
    refused(client.post("/v1/corrections", json={"runId": run_id, "items": [item]}),
            "items/0/rank")  # fmt: skip
    body = {"projectId": "p", "agentRef": {"agentId": "acme-ops.article-picker"}, "dryRun": 0}
    refused(client.post("/v1/eval-suites/acme.one/runs", json=body), "dryRun")
    assert everything(ctx) == before


def test_a_date_filter_that_is_not_a_date_is_refused(app: Any) -> None:
    client, _, _ = app
    refused(client.get("/v1/eval-runs", params={"from": "notadate"}), "from")
    refused(client.get("/v1/eval-runs", params={"to": "2026-01-01T00:00:00"}), "to")
    refused(client.get("/v1/runs", params={"createdAfter": "yesterday"}), "createdAfter")
    assert client.get("/v1/eval-runs", params={"from": "2026-01-01T00:00:00Z"}).status_code == 200


def test_only_json_bodies_in_utf8_are_read(app: Any) -> None:
    client, ctx, _ = app
    before = everything(ctx)
    body = json.dumps({"name": "plain", "slug": "plain"})
    for content, kind in (
        (body.encode(), "text/plain"),
        (body.encode(), None),
        (body.encode("utf-16"), "application/json"),
        (body.encode("utf-16"), "application/json; charset=utf-16"),
    ):
        headers = {"content-type": kind} if kind else {}
        refused(client.post("/v1/projects", content=content, headers=headers))
    sent = client.post("/v1/projects", content=body.encode(),
                       headers={"content-type": "application/json; charset=UTF-8"})  # fmt: skip
    assert sent.status_code == 201, sent.text
    after = everything(ctx)
    assert len(after["projects"]) == len(before["projects"]) + 1


def test_a_host_that_is_not_ours_is_refused(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        before = everything(ctx)
        for host in ("evil.example", "evil.example:4000", "127.0.0.1.evil.example", "10.0.0.1"):
            refused(client.post("/v1/projects", json={"name": "x"}, headers={"host": host}))
            refused(client.get("/health", headers={"host": host}))
        for host in ("127.0.0.1:4000", "localhost", "LOCALHOST:80", "[::1]:4000"):
            assert client.get("/health", headers={"host": host}).status_code == 200
        assert everything(ctx) == before


def test_a_stalled_body_is_refused_and_its_connection_closed(tmp_path: Path) -> None:
    settings = Settings(pack_dir=tmp_path, start_pack=False, body_idle_seconds=0.3)
    app = create_app(settings)
    ctx = app.state.ctx
    before = everything(ctx)
    with serve_app(app) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                f"POST /v1/projects HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Bearer {ctx.identity.token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                '{"name":'.encode()
            )
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert everything(ctx) == before
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(body)["error"]["code"] == "bad-input"
    assert "stalled" in json.loads(body)["error"]["message"]


def test_a_case_made_under_a_corrector_group_is_described_by_the_document(app: Any) -> None:
    client, _, run_id = app
    item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
    made = client.post("/v1/corrections", json={"runId": run_id, "items": [item],
                                                "judgeClassId": class_id(client)})  # fmt: skip
    assert made.status_code == 201, made.text
    listed = client.get("/v1/agents/acme-ops.article-picker/test-set/cases")
    assert listed.status_code == 200, listed.text
    case = next(c for c in listed.json()["data"] if c["runId"] == run_id)
    assert case["judgeClassId"] == class_id(client)
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert set(case) <= set(schemas["TestCase"]["properties"])


def test_sizes_a_request_may_carry_are_capped(app: Any) -> None:
    client, ctx, run_id = app
    before = everything(ctx)
    tiny = {"key": "k", "pointer": "/", "verdict": "right"}
    refused(client.post("/v1/corrections", json={"runId": run_id, "items": [tiny] * 20_001}),
            "items")  # fmt: skip
    long_key = {**tiny, "key": "k" * 501}
    refused(client.post("/v1/corrections", json={"runId": run_id, "items": [long_key]}),
            "items/0/key")  # fmt: skip
    refused(client.post("/v1/projects", json={"name": "n" * 201, "slug": "n"}), "name")
    assert everything(ctx) == before
