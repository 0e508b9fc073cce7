"""Issue 22, point 9: what the fuzzer found, each kept by a test of its own.

Schemathesis's findings were answers that disagreed with a schema: a 405 naming too few
methods, `null` taken where the contract's schema has none, `2.0` refused as an integer,
numbers beyond 64 bits, a suite's project, `since` below 0, and digits that aren't ASCII.
Every refusal here is a 400 (or 404) in the envelope that writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from factories import AGENT, QUESTIONS, served, tutorial_runs
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.domain.bounds import MAX_NUMBER, MAX_WEIGHT
from kindgi_dev.domain.semver import RELEASE_PATTERN, SEMVER_PATTERN
from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))
UNKNOWN_PROJECT = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    with served(tmp_path_factory.mktemp("findings")) as (client, ctx):
        yield client, ctx, tutorial_runs(ctx)[PASSWORD]


def refused(answer: Any, code: str, field: str | None = None, status: int = 400) -> None:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code, error
    if field is not None:
        assert error["details"]["field"] == field, error


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/v1/corrections", "GET, HEAD, POST"),
        ("/v1/judge-classes/some-class", "GET, HEAD, PATCH"),
        ("/v1/eval-suites/acme.s/versions/from-judgments", "POST"),
        ("/v1/projects/default", "GET, HEAD"),
    ],
)
def test_a_405_lists_every_method_of_the_path(app: Any, path: str, allowed: str) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    answer = client.request("OPTIONS", path)
    refused(answer, "method-not-allowed", status=405)
    assert answer.headers["allow"] == allowed
    assert every_row(Path(ctx.db.path)) == before


def judgment(run_id: str, **item: Any) -> dict[str, Any]:
    first = {"key": QUESTIONS[PASSWORD][0], "pointer": "/output/articles/0"}
    return {"runId": run_id, "verdict": "yes", "item": {**first, **item}}


def test_null_is_refused_where_the_contract_has_none(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    scope = {"kind": "tenant"}
    for body, field in [
        ({"scope": scope, "name": "leads", "weight": 1, "description": None}, "description"),
        ({"scope": scope, "name": "leads", "weight": 1, "assertableBy": None}, "assertableBy"),
        ({"scope": scope, "name": "leads", "weight": 1,
          "assertableBy": {"minReviewerRole": "admin", "principalIds": None}},
         "assertableBy/principalIds"),
    ]:  # fmt: skip
        refused(client.post("/v1/judge-classes", json=body), "validation-failed", field)
    refused(client.post("/v1/judgments", json=judgment(run_id, rank=None)),
            "validation-failed", "item/rank")  # fmt: skip
    refused(client.post("/v1/projects", json={"name": "P", "slug": "p", "description": None}),
            "validation-failed", "description")  # fmt: skip
    assert every_row(Path(ctx.db.path)) == before


def test_a_whole_float_is_an_integer_and_a_fraction_is_not(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    refused(client.post("/v1/judgments", json=judgment(run_id, rank=0.5)),
            "validation-failed", "item/rank")  # fmt: skip
    assert every_row(Path(ctx.db.path)) == before
    made = client.post("/v1/judgments", json=judgment(run_id, rank=0.0))
    assert made.status_code == 201, made.text
    assert made.json()["item"]["rank"] == 0


def test_numbers_beyond_64_bits_are_refused_floats_too(app: Any) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    for weight in (1e19, -1e19, 2**63):  # beyond 64 bits (not only past the weight's bound)
        body = {"scope": {"kind": "tenant"}, "name": "heavy", "weight": weight}
        refused(client.post("/v1/judge-classes", json=body), "bad-input", "weight")
    spec = {"id": "acme.t", "tenantId": ctx.tenant_id, "version": "1.0.0", "kind": "custom",
            "spec": {"deep": [{"n": 1e300}]}}  # fmt: skip
    refused(client.post("/v1/test-sets", json=spec), "bad-input", "spec/deep/0/n")
    assert every_row(Path(ctx.db.path)) == before


def test_an_empty_idempotency_key_is_refused(app: Any) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    answer = client.post("/v1/projects", json={"name": "P", "slug": "keyed"},
                         headers={"Idempotency-Key": ""})  # fmt: skip
    refused(answer, "bad-input")
    assert "Idempotency-Key" in answer.json()["error"]["message"]
    assert every_row(Path(ctx.db.path)) == before


def test_a_suite_names_its_project_by_uuid(app: Any) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    suite = {"id": "acme.regress", "version": "1.0.0", "kind": "regression", "spec": {}}
    refused(client.post("/v1/eval-suites", json={**suite, "projectId": "nope"}),
            "bad-input", "projectId")  # fmt: skip
    refused(client.post("/v1/eval-suites", json={**suite, "projectId": UNKNOWN_PROJECT}),
            "project-not-found", status=404)  # fmt: skip
    for version in ("1.0.٣", "1.0", "v1.0.0"):
        project = client.get("/v1/projects/default").json()["id"]
        body = {**suite, "projectId": project, "version": version}
        refused(client.post("/v1/eval-suites", json=body), "validation-failed", "version")
    refused(client.get(f"/v1/eval-suites/{AGENT}", params={"projectId": UNKNOWN_PROJECT}),
            "project-not-found", status=404)  # fmt: skip
    assert every_row(Path(ctx.db.path)) == before


def test_a_journal_starts_after_a_sequence_of_0_or_more(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    whole = client.get(f"/v1/runs/{run_id}/journal").json()["data"]
    assert whole[0]["sequence"] == 0
    after = client.get(f"/v1/runs/{run_id}/journal", params={"since": 0}).json()["data"]
    assert after == whole[1:]
    refused(client.get(f"/v1/runs/{run_id}/journal", params={"since": -1}),
            "validation-failed", "since")  # fmt: skip
    assert every_row(Path(ctx.db.path)) == before


def test_the_document_states_the_rules_the_server_checks(app: Any) -> None:
    client, _, _ = app
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["PublishTestSetBody"]["properties"]["version"]["pattern"] == SEMVER_PATTERN
    assert schemas["PublishEvalSuiteBody"]["properties"]["version"]["pattern"] == RELEASE_PATTERN
    assert schemas["StartSuiteRunBody"]["oneOf"], "exactly one of agentRef / flowRef"
    assert schemas["CreateJudgeClassBody"]["properties"]["weight"]["maximum"] == MAX_WEIGHT
    least = schemas["BuildJudgedSuiteBody"]["properties"]["minJudgments"]
    assert (least["minimum"], least["maximum"]) == (1, MAX_NUMBER), "bounded to 64 bits"
    for name, schema in schemas.items():
        jsonschema_rs.validator_for({**schema, "components": document["components"]})
        assert '"ge"' not in str(schema).replace("'", '"'), f"{name}: a bound not in JSON Schema"
