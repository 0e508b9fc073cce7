"""Runs through the API: a model that fails fails the run with its message; lists and journal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import AGENT, register_pack
from starlette.testclient import TestClient
from stubs.openai_stub import OpenAIStub

from kindgi_dev.api.app import context_of, create_app
from kindgi_dev.settings import Settings


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub().serve()
    yield server
    server.stop()


def test_a_model_answering_500_fails_the_run_with_its_message(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": stub.base_url}
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, env=env))
    ctx = context_of(app)
    stub.queue({"error": {"message": "The model is overloaded", "type": "server_error"}},
               status=500)  # fmt: skip
    with TestClient(app) as client:
        client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        register_pack(ctx)
        answer = client.post(
            "/v1/runs", json={"agent": AGENT, "input": {"userMessage": "Where is it?"}}
        )
        listed = client.get("/v1/runs").json()["data"]
        journal = client.get(f"/v1/runs/{listed[0]['id']}/journal").json()["data"]
        stray = client.post(f"/v1/runs/{listed[0]['id']}/cancel")
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "model-invocation-failed"
    assert error["message"] == "The model is overloaded"
    assert error["details"]["runId"] == listed[0]["id"]
    assert listed[0]["status"] == "failed"
    assert listed[0]["failureMessage"] == "The model is overloaded"
    assert [entry["kind"] for entry in journal] == ["run.started", "run.failed"]
    assert stray.status_code == 409
    assert stray.json()["error"]["code"] == "run-already-terminal"
    assert stub.requests[0].headers["authorization"] == "Bearer sk-test"
