"""A provider registered over the API (`providers register --spec`) is called like one in
`[tool.kindgi-dev.providers]`; `providers get`, `check`, `capabilities` and `unregister`
answer in the official client 0.1.10's shapes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, served
from kindgi.client import Kindgi
from kindgi.client._models import (
    CapabilityCollectionPage,
    ProviderCheckResult,
    ProviderCollectionPage,
    ProviderMetadata,
)
from stubs.openai_stub import OpenAIStub
from tables import every_row

OPENAI_COMPAT = "@kindgi/adapter-model-openai-compat"


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub().serve()
    yield server
    server.stop()


def registration(base_url: str, provider_id: str = "groq", **extra: Any) -> dict[str, Any]:
    """A registration body as `kindgi providers register --spec` sends it."""
    model = {"name": "llama-x", "contextWindow": 8192, "features": ["tool-use"],
             "cost": {"promptUsdPer1kTokens": 0.5, "completionUsdPer1kTokens": 1.5}}  # fmt: skip
    return {
        "metadata": {"id": provider_id, "region": "us", "models": [model],
                     "defaultModel": "llama-x"},
        "adapter_id": OPENAI_COMPAT,
        "secret_ref": {"name": "GROQ_KEY", "envName": "local"},
        "adapter_config": {"baseURL": base_url, "api": "chat-completions"},
        **extra,
    }  # fmt: skip


def test_a_registered_provider_answers_the_agents_turns(tmp_path: Path, stub: OpenAIStub) -> None:
    with served(tmp_path, env={"GROQ_KEY": "gsk-test"}) as (http, ctx):
        kindgi = Kindgi(base_url=str(http.base_url), token=ctx.identity.token, http_client=http)
        assert kindgi.providers.register(registration(stub.base_url)).provider_id == "groq"
        got = kindgi.providers.get("groq")
        assert ([m.name for m in got.models], got.default_model) == (["llama-x"], "llama-x")
        assert got.labels is not None and got.labels["key"] == "set"
        page = http.get("/v1/providers").json()
        ProviderCollectionPage.model_validate(page)
        assert [p["id"] for p in page["data"]] == ["groq"]
        assert http.get("/v1/providers", params={"feature": "vision"}).json()["data"] == []

        stub.queue_text('{"answer": "Try kb-101.", "output": {"articles": []}}',
                        prompt_tokens=120, completion_tokens=30)  # fmt: skip
        answer = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "Hi"}})
        assert answer.status_code == 201, answer.text
        run = answer.json()
        assert run["status"] == "completed"
        assert run["output"]["provider"]["id"] == "groq"  # with the model the server named
        assert stub.requests[0].headers["authorization"] == "Bearer gsk-test"
        assert stub.requests[0].json["model"] == "llama-x"

        check = kindgi.providers.check("groq")
        assert (check.checked, check.issues, check.adapter_id) == (True, [], OPENAI_COMPAT)
        capabilities = kindgi.providers.capabilities("groq").data
        assert [(c.id, [p.models for p in c.providers or []]) for c in capabilities] == [
            ("feature:tool-use", [["llama-x"]])]  # fmt: skip

        gone = kindgi.providers.unregister("groq")
        assert (gone.provider_id, gone.unregistered) == ("groq", True)
        missing = http.get("/v1/providers/groq")
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "provider-not-found")
        assert kindgi.providers.register(registration(stub.base_url)).provider_id == "groq"


def test_a_missing_key_is_said_and_refusals_write_nothing(tmp_path: Path) -> None:
    with served(tmp_path) as (http, ctx):
        made = http.post("/v1/providers", json=registration("https://api.groq.example/v1"))
        assert made.status_code == 201, made.text
        provider = http.get("/v1/providers/groq").json()
        ProviderMetadata.model_validate(provider)
        assert provider["labels"] == {"key": "missing"}
        check = http.get("/v1/providers/groq/check").json()
        ProviderCheckResult.model_validate(check)
        assert check["issues"] == [
            {"path": "/secret_ref", "message": "GROQ_KEY is not set in kindgi dev's environment."}
        ]
        before = every_row(Path(ctx.db.path))
        gemini = {**registration("x", "gemini"), "adapter_id": "@kindgi/adapter-model-gemini"}
        refusals = [
            (gemini, 422, "provider-config-invalid"),
            (registration("https://api.groq.example/v1"), 409, "provider-already-registered"),
            (registration("x", "function"), 409, "provider-id-reserved"),
            (registration("x", "other", adapter_config={"baseURL": "x", "region": "eu"}), 422,
             "provider-config-invalid"),
            ({**registration("x", "other"), "metadata": {"id": "other", "region": "us",
              "models": []}}, 400, "validation-failed"),
            ({**registration("x", "other"), "adapter_id": ""}, 400, "validation-failed"),
        ]  # fmt: skip
        for body, status, code in refusals:
            answer = http.post("/v1/providers", json=body)
            assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body
        issues = http.post("/v1/providers", json=gemini).json()["error"]["details"]["issues"]
        assert [issue["path"] for issue in issues] == ["/adapter_id"]
        unknown = http.post("/v1/providers/nope/unregister")
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (
            404, "provider-not-found")  # fmt: skip
        assert every_row(Path(ctx.db.path)) == before


def test_capabilities_list_the_features_and_the_models_that_have_them(tmp_path: Path) -> None:
    with served(tmp_path) as (http, _):
        http.post("/v1/providers", json=registration("https://api.groq.example/v1"))
        page = http.get("/v1/capabilities").json()
        CapabilityCollectionPage.model_validate(page)
        features = [c["feature"] for c in page["data"]]
        assert features[:2] == ["structured-output", "vision"] and len(features) == 13
        tool_use = http.get("/v1/capabilities/feature:tool-use").json()
        assert tool_use["providers"] == [{"providerId": "groq", "models": ["llama-x"]}]
        assert http.get("/v1/capabilities/feature:vision").json()["providers"] == []
        prefixed = http.get("/v1/capabilities", params={"feature": "audio"}).json()["data"]
        assert [c["id"] for c in prefixed] == ["feature:audio-input", "feature:audio-output"]
        first = http.get("/v1/capabilities", params={"limit": 10}).json()
        rest = http.get("/v1/capabilities", params={"cursor": first["nextCursor"]}).json()
        assert len(first["data"]) == 10 and len(rest["data"]) == 3 and not rest["hasMore"]
        nope = http.get("/v1/capabilities/feature:teleport")
        assert (nope.status_code, nope.json()["error"]["code"]) == (404, "capability-not-found")
