"""What the real CLI's `auth whoami` and `doctor` ask: who the token is, the providers, sign-in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings

MODELS = """
from kindgi_dev.models import Reply, Turn, model


@model(default=True)
def picker(turn: Turn) -> Reply:
    return Reply(text="hi")


@model()
def other(turn: Turn) -> Reply:
    return Reply(text="ho")
"""


@contextmanager
def client_for(pack: Path, env: dict[str, str] | None = None) -> Iterator[TestClient]:
    settings = Settings(pack_dir=pack, start_pack=False, env=env or {})
    app = create_app(settings)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {context_of(app).identity.token}"
        yield client


@pytest.fixture()
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kindgi.pack]\nid = "demo"\nversion = "0.1.0"\n\n'
        '[tool.kindgi-dev]\nmodels = "dev_models.py"\n'
    )
    (tmp_path / "dev_models.py").write_text(MODELS)
    return tmp_path


def test_whoami_is_the_instance_tenant_and_user(pack: Path) -> None:
    with client_for(pack) as client:
        identity = context_of(client.app).identity
        assert client.get("/v1/identity/whoami").json() == {
            "tenantId": identity.tenant_id,
            "actor": f"user:{identity.user_id}",
            "userId": identity.user_id,
            "principal": {"kind": "user", "id": identity.user_id},
            "scopes": ["*"],
            "role": "admin",
            "tenantAdmin": True,
        }
        bare = TestClient(client.app, base_url="http://127.0.0.1")
        assert bare.get("/v1/identity/whoami").status_code == 401


def test_providers_list_the_function_models(pack: Path) -> None:
    with client_for(pack) as client:
        page = client.get("/v1/providers").json()
        assert page["hasMore"] is False
        [function] = page["data"]
        assert function["id"] == "function"
        assert [m["name"] for m in function["models"]] == ["picker", "other"]
        assert function["defaultModel"] == "picker"
        assert function["labels"] == {"key": "not-needed"}
        assert function["models"][0]["cost"] == {
            "promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}  # fmt: skip


def test_a_keyless_openai_compatible_server_is_listed_with_no_key(pack: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}
    with client_for(pack, env) as client:
        ids = {p["id"]: p for p in client.get("/v1/providers").json()["data"]}
        assert sorted(ids) == ["function", "openai"]
        assert ids["openai"]["labels"] == {"key": "not-needed"}
    with client_for(pack, {"ANTHROPIC_API_KEY": "sk-test"}) as client:
        ids = {p["id"]: p for p in client.get("/v1/providers").json()["data"]}
        assert sorted(ids) == ["anthropic", "function"]
        assert ids["anthropic"]["labels"] == {"key": "set"}


def test_sign_in_options_are_public_and_mcp_endpoints_empty(pack: Path) -> None:
    with client_for(pack) as client:
        bare = TestClient(client.app, base_url="http://127.0.0.1")
        assert bare.get("/v1/auth/sign-in-options").json() == {
            "data": [], "methods": {"identityProviders": False, "apiToken": True}}  # fmt: skip
        assert client.get("/v1/mcp/endpoints").json() == {"data": [], "hasMore": False}
