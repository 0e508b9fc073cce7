"""`/v1/judge-classes`: scopes, names, weights, restrictions, retiring, and their judgments."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, served, tutorial_runs
from kindgi.client import _models
from starlette.testclient import TestClient
from tables import row_counts

from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context, dict[str, str]]]:
    with served(tmp_path) as (client, ctx):
        yield client, ctx, tutorial_runs(ctx)


def default_project(ctx: Context) -> str:
    return str(ctx.db.one("SELECT id FROM projects WHERE is_default = 1")["id"])


def new_class(client: TestClient, name: str = "expert", **extra: Any) -> dict[str, Any]:
    """Create a tenant class (unless `scope` is given) and return it."""
    body = {"scope": {"kind": "tenant"}, "name": name, "weight": 3, **extra}
    answer = client.post("/v1/judge-classes", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def judge(client: TestClient, run_id: str, class_id: str | None = None, key: str = "kb-101") -> Any:
    """POST a judgment of the run's first article, `key` (kb-101 in the password run)."""
    body: dict[str, Any] = {
        "runId": run_id,
        "item": {"key": key, "pointer": "/output/articles/0", "rank": 0},
        "verdict": "yes",
    }
    if class_id:
        body["judgeClassId"] = class_id
    return client.post("/v1/judgments", json=body)


def test_create_get_and_list(app: Any) -> None:
    client, ctx, _ = app
    restricted = {"principalIds": [ctx.identity.user_id, "u-2"], "minReviewerRole": "senior"}
    first = new_class(client, "expert", description="Support leads", assertableBy=restricted)
    _models.JudgeClass.model_validate(first)
    assert first["weight"] == 3 and first["scope"] == {"kind": "tenant"}
    assert first["assertableBy"] == {**restricted, "principalCount": 2}
    project = default_project(ctx)
    second = new_class(client, "user", scope={"kind": "project", "projectId": project})
    assert client.get(f"/v1/judge-classes/{first['id']}").json() == first
    listed = client.get("/v1/judge-classes").json()
    assert {c["id"] for c in listed["data"]} == {second["id"], first["id"]}
    assert listed["data"][0]["createdAt"] >= listed["data"][1]["createdAt"]
    only = client.get("/v1/judge-classes", params={"scopeKind": "project", "projectId": project})
    assert [c["id"] for c in only.json()["data"]] == [second["id"]]


@pytest.mark.parametrize(
    "params",
    [
        {"scopeKind": "project"},
        {"scopeKind": "agent", "projectId": "p"},
        {"scopeKind": "tenant", "projectId": "p"},
    ],
)
def test_list_refuses_a_bad_scope(app: Any, params: dict[str, str]) -> None:
    client, _, _ = app
    answer = client.get("/v1/judge-classes", params=params)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "scope-invalid")


def test_a_name_is_unique_among_the_live_classes_of_its_scope(app: Any) -> None:
    client, ctx, _ = app
    first = new_class(client, "expert")
    taken = client.post(
        "/v1/judge-classes", json={"scope": {"kind": "tenant"}, "name": "expert", "weight": 1}
    )
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "judge-class-name-taken")
    new_class(client, "expert", scope={"kind": "project", "projectId": default_project(ctx)})
    client.post(f"/v1/judge-classes/{first['id']}/unregister")
    new_class(client, "expert")


@pytest.mark.parametrize(
    "body",
    [
        {"scope": {"kind": "tenant"}, "name": "x", "weight": -1},
        {"scope": {"kind": "tenant"}, "name": "", "weight": 1},
        {"scope": {"kind": "tenant"}, "name": "x" * 101, "weight": 1},
        {"scope": {"kind": "agent", "projectId": "p"}, "name": "x", "weight": 1},
        {"scope": {"kind": "tenant"}, "name": "x", "weight": 1, "assertableBy": {}},
        {"scope": {"kind": "tenant"}, "name": "x", "weight": 1, "colour": "red"},
    ],
)
def test_create_refuses_bad_bodies(app: Any, body: dict[str, Any]) -> None:
    client, ctx, _ = app
    answer = client.post("/v1/judge-classes", json=body)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "validation-failed")
    assert row_counts(ctx.db)["judge_classes"] == 0


def test_create_in_an_unknown_project_is_404(app: Any) -> None:
    client, _, _ = app
    body = {"scope": {"kind": "project", "projectId": "nope"}, "name": "x", "weight": 1}
    answer = client.post("/v1/judge-classes", json=body)
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "project-not-found")


def test_update_and_lift_the_restriction(app: Any) -> None:
    client, _, _ = app
    judge_class = new_class(client, assertableBy={"principalKinds": ["user"]})
    path = f"/v1/judge-classes/{judge_class['id']}"
    changed = client.patch(path, json={"weight": 0.5, "description": "Half"}).json()
    assert (changed["weight"], changed["description"]) == (0.5, "Half")
    assert changed["assertableBy"] == {"principalKinds": ["user"]}
    lifted = client.patch(path, json={"assertableBy": None}).json()
    assert "assertableBy" not in lifted
    empty = client.patch(path, json={})
    assert (empty.status_code, empty.json()["error"]["code"]) == (400, "validation-failed")


def test_unregister_keeps_judgments_and_refuses_new_ones(app: Any) -> None:
    client, ctx, runs = app
    judge_class = new_class(client)
    judgment = judge(client, runs[PASSWORD], judge_class["id"]).json()
    answer = client.post(f"/v1/judge-classes/{judge_class['id']}/unregister")
    assert answer.json() == {"judgeClassId": judge_class["id"], "unregistered": True}
    assert "unregisteredAt" in client.get(f"/v1/judge-classes/{judge_class['id']}").json()
    assert client.get("/v1/judge-classes").json()["data"] == []
    kept = client.get(f"/v1/judgments/{judgment['id']}").json()
    assert kept["judgeClassId"] == judge_class["id"]
    before = row_counts(ctx.db)
    refused = judge(client, runs[PASSWORD], judge_class["id"])
    assert (refused.status_code, refused.json()["error"]["code"]) == (404, "judge-class-not-found")
    assert row_counts(ctx.db) == before
    for again in (
        client.post(f"/v1/judge-classes/{judge_class['id']}/unregister"),
        client.patch(f"/v1/judge-classes/{judge_class['id']}", json={"weight": 2}),
    ):
        assert again.status_code == 409
        assert again.json()["error"]["code"] == "judge-class-already-unregistered"


def test_unknown_class(app: Any) -> None:
    client, ctx, runs = app
    assert client.get("/v1/judge-classes/nope").json()["error"]["code"] == "judge-class-not-found"
    before = row_counts(ctx.db)
    answer = judge(client, runs[PASSWORD], "nope")
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "judge-class-not-found")
    assert row_counts(ctx.db) == before


def test_a_restricted_class_refuses_a_principal_it_does_not_name(app: Any) -> None:
    client, ctx, runs = app
    judge_class = new_class(client, assertableBy={"principalIds": ["someone-else"]})
    before = row_counts(ctx.db)
    answer = judge(client, runs[PASSWORD], judge_class["id"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "judge-class-not-allowed")
    assert row_counts(ctx.db) == before


@pytest.mark.parametrize(
    "scope",
    [
        {"kind": "agent", "projectId": "DEFAULT", "agentId": "acme-ops.other"},
        {"kind": "project", "projectId": "OTHER"},
    ],
)
def test_a_class_of_another_scope_is_not_applicable(app: Any, scope: dict[str, str]) -> None:
    client, ctx, runs = app
    other = client.post("/v1/projects", json={"name": "Other", "slug": "other"}).json()["id"]
    ids = {"DEFAULT": default_project(ctx), "OTHER": other}
    scope = {k: ids.get(v, v) for k, v in scope.items()}
    judge_class = new_class(client, scope=scope)
    before = row_counts(ctx.db)
    answer = judge(client, runs[PASSWORD], judge_class["id"])
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "judge-class-not-applicable"
    assert row_counts(ctx.db) == before


def test_an_agent_class_applies_to_its_agents_runs(app: Any) -> None:
    client, ctx, runs = app
    scope = {"kind": "agent", "projectId": default_project(ctx), "agentId": AGENT}
    judge_class = new_class(client, scope=scope)
    assert judge(client, runs[PASSWORD], judge_class["id"]).status_code == 201


def test_restricted_stays_as_recorded(app: Any) -> None:
    client, ctx, runs = app
    me = ctx.identity.user_id
    restricted = new_class(client, "expert", assertableBy={"principalIds": [me]})
    open_class = new_class(client, "user", weight=1)
    (_, run_a), (charged, run_b) = list(runs.items())[:2]
    under_restricted = judge(client, run_a, restricted["id"]).json()
    under_open = judge(client, run_b, open_class["id"], key=QUESTIONS[charged][0]).json()
    assert under_restricted["restricted"] is True
    assert "restricted" not in under_open
    client.patch(f"/v1/judge-classes/{restricted['id']}", json={"assertableBy": None})
    client.patch(
        f"/v1/judge-classes/{open_class['id']}", json={"assertableBy": {"principalIds": [me]}}
    )
    assert client.get(f"/v1/judgments/{under_restricted['id']}").json()["restricted"] is True
    assert "restricted" not in client.get(f"/v1/judgments/{under_open['id']}").json()
    listed = client.get("/v1/judgments", params={"judgeClassId": restricted["id"]}).json()
    assert [j["id"] for j in listed["data"]] == [under_restricted["id"]]
