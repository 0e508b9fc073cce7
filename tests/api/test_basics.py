"""Issue 2: every error case answers in the envelope, and a refused call writes nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kindgi_dev import __version__
from kindgi_dev.app import context_of, create_app
from kindgi_dev.services import projects
from kindgi_dev.settings import Settings


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, max_body_bytes=1000))
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as test_client:
        test_client.headers["Authorization"] = f"Bearer {context_of(app).identity.token}"
        yield test_client


def project_count(client: TestClient) -> int:
    return len(client.get("/v1/projects", params={"limit": 100}).json()["data"])


def assert_envelope(response, status: int, code: str) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == code
    assert error["message"]
    assert error["requestId"] == response.headers["x-request-id"]
    return error


def test_only_health_ready_and_the_openapi_document_are_public(client: TestClient) -> None:
    bare = TestClient(client.app, base_url="http://127.0.0.1")
    assert bare.get("/health").json() == {"ok": True}
    assert bare.get("/health").headers["x-request-id"].startswith("req-")
    assert bare.get("/ready").json() == {"ok": True}
    assert_envelope(bare.get("/v1/projects"), 401, "auth-missing")
    document = client.get("/openapi.json").json()
    assert document["info"] == {"title": "kindgi dev", "version": __version__}
    for path in ("/openapi.json", "/v1/openapi.json"):
        assert bare.get(path).json() == document


def test_every_v1_route_needs_the_token(client: TestClient) -> None:
    bare = TestClient(client.app, base_url="http://127.0.0.1")
    assert_envelope(bare.get("/v1/projects/default"), 401, "auth-missing")
    wrong = bare.get("/v1/projects", headers={"Authorization": "Bearer kgi_bt_nope"})
    assert_envelope(wrong, 401, "auth-missing")
    assert_envelope(
        bare.get("/v1/projects", headers={"Authorization": "Basic x"}), 401, "auth-missing"
    )


def test_unknown_route_wrong_method_bad_json_and_too_large(client: TestClient) -> None:
    before = project_count(client)
    assert_envelope(client.get("/v1/nothing-here"), 404, "not-found")
    assert_envelope(client.delete("/v1/projects"), 405, "method-not-allowed")
    assert_envelope(client.post("/v1/projects", content=b"{not json"), 400, "bad-input")
    error = assert_envelope(
        client.post("/v1/projects", content=b"{" + b" " * 2000 + b"}"), 413, "request-too-large"
    )
    assert error["details"] == {"maxBytes": 1000}
    invalid = assert_envelope(
        client.post("/v1/projects", json={"name": ""}), 400, "validation-failed"
    )
    assert invalid["details"]["field"] == "name"
    assert project_count(client) == before


def test_unexpected_errors_are_500_without_a_trace(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("secret internals")

    monkeypatch.setattr(projects, "get_default", explode)
    error = assert_envelope(client.get("/v1/projects/default"), 500, "internal-server-error")
    assert "secret" not in error["message"]
    assert error["requestId"] in error["message"]


def test_request_id_is_echoed(client: TestClient) -> None:
    response = client.get("/v1/projects/default", headers={"X-Request-Id": "mine-1"})
    assert response.headers["x-request-id"] == "mine-1"
    assert_envelope(
        client.get("/v1/projects/zzz", headers={"X-Request-Id": "mine-2"}), 404, "project-not-found"
    )


def test_paging_limits_and_cursor(client: TestClient) -> None:
    for n in range(4):
        time.sleep(0.002)  # the contract orders by createdAt (ms), then id
        client.post("/v1/projects", json={"name": f"p{n}", "slug": f"p{n}"})
    first = client.get("/v1/projects", params={"limit": 2}).json()
    assert len(first["data"]) == 2 and first["hasMore"] is True
    second = client.get("/v1/projects", params={"limit": 2, "cursor": first["nextCursor"]}).json()
    third = client.get("/v1/projects", params={"limit": 2, "cursor": second["nextCursor"]}).json()
    names = [p["name"] for page in (first, second, third) for p in page["data"]]
    assert names == ["p3", "p2", "p1", "p0", "Default"]
    assert third["hasMore"] is False and "nextCursor" not in third
    assert_envelope(client.get("/v1/projects", params={"cursor": "%%%"}), 400, "bad-input")
    assert len(client.get("/v1/projects", params={"limit": 0}).json()["data"]) == 5


def test_idempotency_key_replays_and_refuses_another_body(client: TestClient) -> None:
    headers = {"Idempotency-Key": "key-1"}
    first = client.post("/v1/projects", json={"name": "A", "slug": "a"}, headers=headers)
    again = client.post("/v1/projects", json={"name": "A", "slug": "a"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["x-idempotent-replay"] == "true"
    before = project_count(client)
    other = client.post("/v1/projects", json={"name": "B", "slug": "b"}, headers=headers)
    assert_envelope(other, 409, "idempotency-key-body-mismatch")
    assert project_count(client) == before


def test_projects_conflicts(client: TestClient) -> None:
    client.post("/v1/projects", json={"name": "A", "slug": "a"})
    assert_envelope(
        client.post("/v1/projects", json={"name": "A2", "slug": "a"}), 409, "slug-conflict"
    )
    assert_envelope(
        client.post("/v1/projects", json={"name": "D", "slug": "d", "isDefault": True}),
        409,
        "project-default-already-exists",
    )
    assert_envelope(
        client.post("/v1/projects", json={"name": "O", "slug": "o", "orgId": "x"}),
        404,
        "org-not-found",
    )


def test_openapi_is_generated_from_the_routes(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    operation = document["paths"]["/v1/projects"]["post"]
    assert operation["operationId"] == "projects.create"
    assert "201" in operation["responses"]
    assert document["paths"]["/health"]["get"]["security"] == []


def test_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    from kindgi_dev.store.db import Database, DatabaseTooNew

    db = Database(tmp_path / "x.sqlite3")
    db.migrate()
    db.run("INSERT INTO schema_migrations VALUES (9999, 'future', 'x')")
    db.close()
    with pytest.raises(DatabaseTooNew, match="9999"):
        Database(tmp_path / "x.sqlite3").migrate()
