"""`/v1/judgments`: the contract's shapes, supersession, copies, filters and refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import (
    QUESTIONS,
    UNCORRECTABLE,
    served,
    tutorial_runs,
    uncorrectable_run,
)
from kindgi.client import _models
from starlette.testclient import TestClient
from tables import row_counts

from kindgi_dev.services.context import Context

JUDGMENT_FIELDS = {
    "id", "tenantId", "projectId", "runId", "subject", "item", "verdict", "reason",
    "judgeClassId", "restricted", "assertedBy", "participantId", "createdAt",
    "unregisteredAt", "supersededBy",
}  # fmt: skip
PASSWORD = next(iter(QUESTIONS))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context, dict[str, str]]]:
    with served(tmp_path) as (client, ctx):
        yield client, ctx, tutorial_runs(ctx)


def judge(
    client: TestClient, run_id: str, key: str, index: int, verdict: str = "yes", **extra: Any
) -> Any:
    """POST one judgment of the article at `index`."""
    body = {
        "runId": run_id,
        "item": {"key": key, "pointer": f"/output/articles/{index}", "rank": index},
        "verdict": verdict,
        **extra,
    }
    return client.post("/v1/judgments", json=body)


def test_create_answers_the_contract_judgment(app: Any) -> None:
    client, ctx, runs = app
    answer = judge(client, runs[PASSWORD], "kb-101", 0, reason="Resets the password")
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) <= JUDGMENT_FIELDS
    _models.Judgment.model_validate(body)
    assert body["item"] == {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0}
    assert body["verdict"] == "yes"
    assert body["reason"] == "Resets the password"
    assert body["assertedBy"] == {"kind": "user", "id": ctx.identity.user_id}
    assert body["subject"] == {"kind": "agent", "id": "acme-ops.article-picker", "version": "0.1.0"}
    assert "restricted" not in body and "unregisteredAt" not in body


def test_get_has_the_run_copy_and_the_item_value(app: Any) -> None:
    client, _, runs = app
    judgment = judge(client, runs[PASSWORD], "kb-102", 1, "no").json()
    answer = client.get(f"/v1/judgments/{judgment['id']}")
    assert answer.status_code == 200
    body = answer.json()
    _models.JudgmentWithCopies.model_validate(body)
    assert body["itemValue"] == {"id": "kb-102", "title": "Change the email on your account"}
    copy = body["run"]
    assert copy["runId"] == runs[PASSWORD]
    assert copy["input"] == {"userMessage": PASSWORD}
    assert copy["output"]["output"]["articles"][1]["id"] == "kb-102"
    assert copy["context"]["toolEnv"] == {"acme-ops.search-articles": {}}
    assert copy["context"]["history"] == []


def test_the_run_copy_is_taken_once_at_the_first_judgment(app: Any) -> None:
    client, ctx, runs = app
    first = judge(client, runs[PASSWORD], "kb-101", 0).json()
    judge(client, runs[PASSWORD], "kb-102", 1, "no")
    assert row_counts(ctx.db)["judged_run_copies"] == 1
    captured = client.get(f"/v1/judgments/{first['id']}").json()["run"]["capturedAt"]
    assert captured == first["createdAt"]


def test_a_whole_output_pointer_keeps_the_whole_output(app: Any) -> None:
    client, _, runs = app
    body = {"runId": runs[PASSWORD], "item": {"key": "all", "pointer": ""}, "verdict": "yes"}
    judgment = client.post("/v1/judgments", json=body).json()
    value = client.get(f"/v1/judgments/{judgment['id']}").json()["itemValue"]
    assert value["output"]["articles"][0]["id"] == "kb-101"


def test_rejudging_an_item_supersedes_the_earlier_judgment(app: Any) -> None:
    client, _, runs = app
    first = judge(client, runs[PASSWORD], "kb-101", 0, "yes").json()
    second = judge(client, runs[PASSWORD], "kb-101", 0, "no", reason="Changed my mind").json()
    old = client.get(f"/v1/judgments/{first['id']}").json()
    assert old["supersededBy"] == second["id"]
    assert old["unregisteredAt"] == second["createdAt"]
    listed = client.get("/v1/judgments", params={"runId": runs[PASSWORD]}).json()["data"]
    assert [j["id"] for j in listed] == [second["id"]]


def test_another_participant_does_not_supersede(app: Any) -> None:
    client, _, runs = app
    mine = judge(client, runs[PASSWORD], "kb-101", 0).json()
    theirs = judge(client, runs[PASSWORD], "kb-101", 0, "no", participantId="end-user-7").json()
    assert theirs["participantId"] == "end-user-7"
    listed = client.get("/v1/judgments").json()["data"]
    assert {j["id"] for j in listed} == {mine["id"], theirs["id"]}


def test_list_filters_and_pages(app: Any) -> None:
    client, ctx, runs = app
    for question, run_id in runs.items():
        judge(client, run_id, QUESTIONS[question][0], 0, "yes")
        judge(client, run_id, QUESTIONS[question][1], 1, "no")
    assert len(client.get("/v1/judgments").json()["data"]) == 6
    only_no = client.get("/v1/judgments", params={"verdict": "no"}).json()["data"]
    assert {j["verdict"] for j in only_no} == {"no"} and len(only_no) == 3
    params = {"agentId": "acme-ops.article-picker", "agentVersion": "0.1.0"}
    assert len(client.get("/v1/judgments", params=params).json()["data"]) == 6
    assert client.get("/v1/judgments", params={"agentId": "other"}).json()["data"] == []
    assert client.get("/v1/judgments", params={"flowId": "some.flow"}).json()["data"] == []
    project = ctx.db.one("SELECT id FROM projects WHERE is_default = 1")["id"]
    scoped = {"scopeKind": "project", "scopeId": project}
    assert len(client.get("/v1/judgments", params=scoped).json()["data"]) == 6
    page = client.get("/v1/judgments", params={"limit": 4}).json()
    assert page["hasMore"] is True and len(page["data"]) == 4
    rest = client.get("/v1/judgments", params={"limit": 4, "cursor": page["nextCursor"]}).json()
    assert rest["hasMore"] is False and "nextCursor" not in rest
    seen = [j["id"] for j in page["data"] + rest["data"]]
    assert len(set(seen)) == 6
    created = [j["createdAt"] for j in page["data"] + rest["data"]]
    assert created == sorted(created, reverse=True)


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"agentVersion": "0.1.0"}, "validation-failed"),
        ({"scopeKind": "project"}, "scope-invalid"),
        ({"scopeKind": "tenant", "scopeId": "x"}, "scope-invalid"),
        ({"scopeId": "x"}, "scope-invalid"),
        ({"verdict": "maybe"}, "validation-failed"),
        ({"cursor": "not-ours"}, "bad-input"),
    ],
)
def test_list_refuses_bad_queries(app: Any, params: dict[str, str], code: str) -> None:
    client, _, _ = app
    answer = client.get("/v1/judgments", params=params)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, code)


def test_unregister_then_again(app: Any) -> None:
    client, _, runs = app
    judgment = judge(client, runs[PASSWORD], "kb-101", 0).json()
    answer = client.post(f"/v1/judgments/{judgment['id']}/unregister")
    assert answer.status_code == 200
    assert answer.json() == {"judgmentId": judgment["id"], "unregistered": True}
    assert client.get("/v1/judgments").json()["data"] == []
    assert "unregisteredAt" in client.get(f"/v1/judgments/{judgment['id']}").json()
    again = client.post(f"/v1/judgments/{judgment['id']}/unregister")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "judgment-already-unregistered"


def test_unknown_judgment_is_404(app: Any) -> None:
    client, _, _ = app
    for answer in (
        client.get("/v1/judgments/nope"),
        client.post("/v1/judgments/nope/unregister"),
    ):
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "judgment-not-found"


@pytest.mark.parametrize(("kind", "status", "code"), UNCORRECTABLE)
def test_runs_that_cannot_be_judged(app: Any, kind: str, status: int, code: str) -> None:
    client, ctx, runs = app
    run_id = uncorrectable_run(ctx, runs, kind)
    before = row_counts(ctx.db)
    answer = judge(client, run_id, "kb-101", 0)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert row_counts(ctx.db) == before


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        (
            {"item": {"key": "kb-101", "pointer": "/output/articles/9"}},
            "item-not-found",
            "item/pointer",
        ),
        ({"item": {"key": "kb-101", "pointer": "output"}}, "validation-failed", "item/pointer"),
        (
            {"item": {"key": "kb-101", "pointer": "/output/articles/2"}},
            "validation-failed",
            "item/pointer",
        ),
        ({"item": {"pointer": "/output/articles/0"}}, "validation-failed", "item/key"),
        ({"item": {"key": "kb-101", "rank": -1}}, "validation-failed", "item/rank"),
        ({"verdict": "right"}, "validation-failed", "verdict"),
        ({"reason": "x" * 4001}, "validation-failed", "reason"),
    ],
)
def test_bad_bodies_are_refused_and_nothing_is_written(
    app: Any, change: dict[str, Any], code: str, field: str
) -> None:
    client, ctx, runs = app
    body = {"runId": runs[PASSWORD], "item": {"key": "kb-101"}, "verdict": "yes", **change}
    before = row_counts(ctx.db)
    answer = client.post("/v1/judgments", json=body)
    error = answer.json()["error"]
    assert (answer.status_code, error["code"], error["details"]["field"]) == (400, code, field)
    assert row_counts(ctx.db) == before
