"""`/v1/test-sets`: the registry's rules, and the `corrections` kind's agent sets and suites."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from correction_rows import invoke_cli, tutorial_corrections
from factories import AGENT, served, tutorial_runs
from starlette.testclient import TestClient

from kindgi_dev.cli import test_sets as test_sets_cli
from kindgi_dev.services.context import Context


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context]]:
    with served(tmp_path) as pair:
        yield pair


def _entry(ctx: Context, **change: Any) -> dict[str, Any]:
    entry = {"id": "acme.drafting-accuracy", "tenantId": ctx.tenant_id, "version": "1.0.0",
             "kind": "accuracy", "description": "Drafts against ground truth",
             "spec": {"cases": [{"input": "a", "expectedOutput": "b"},
                                {"input": "c", "expectedOutput": "d"}]}}  # fmt: skip
    entry.update(change)
    return {k: v for k, v in entry.items() if v is not None}


@pytest.fixture
def corrected(app: tuple[TestClient, Context]) -> dict[str, str]:
    """The tutorial corrected, its set frozen once, and a judged suite built from it."""
    client, ctx = app
    tutorial_corrections(ctx, tutorial_runs(ctx))
    project = client.get("/v1/projects/default").json()["id"]
    frozen = client.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
    client.post("/v1/eval-suites/acme.article-picks/versions/from-judgments",
                json={"version": "1.0.0", "projectId": project, "agentId": AGENT})  # fmt: skip
    return {"project": project, "set": frozen["testSetId"]}


def test_a_published_version_never_changes(app: tuple[TestClient, Context]) -> None:
    client, ctx = app
    first = client.post("/v1/test-sets", json=_entry(ctx))
    assert (first.status_code, first.json()) == (201, _entry(ctx))
    again = client.post("/v1/test-sets", json=_entry(ctx))
    assert (again.status_code, again.json()) == (200, _entry(ctx))
    changed = client.post("/v1/test-sets", json=_entry(ctx, description="Other words"))
    assert (changed.status_code, changed.json()["error"]["code"]) == (409, "version-already-exists")
    assert client.get("/v1/test-sets/acme.drafting-accuracy").json() == _entry(ctx)
    assert client.post("/v1/test-sets", json=_entry(ctx, version="1.1.0")).status_code == 201


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"version": "1.0"}, "version"),
        ({"version": "latest"}, "version"),
        ({"kind": "judged"}, "kind"),
        ({"kind": "Accuracy"}, "kind"),
        ({"spec": [1, 2]}, "spec"),
        ({"spec": "cases"}, "spec"),
        ({"spec": None}, "spec"),
        ({"tenantId": "someone-else"}, "tenantId"),
        ({"tenantId": None}, "tenantId"),
        ({"id": "acme drafting"}, "id"),
        ({"extra": 1}, "extra"),
    ],
)
def test_the_registry_refuses_what_its_schema_does_not_allow(
    app: tuple[TestClient, Context], change: dict[str, Any], field: str
) -> None:
    client, ctx = app
    answer = client.post("/v1/test-sets", json=_entry(ctx, **change))
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "validation-failed" and error["details"]["field"] == field
    assert ctx.db.one("SELECT count(*) AS n FROM test_set_registry")["n"] == 0


def test_a_published_id_may_not_name_an_agents_test_set_here(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    project = client.get("/v1/projects/default").json()["id"]
    here = client.post("/v1/test-sets", json=_entry(ctx, id=f"{AGENT}~{project}"))
    assert (here.status_code, here.json()["error"]["details"]["field"]) == (400, "id")
    elsewhere = f"{AGENT}~0b6f3a52-5d0e-4f7e-9d55-1f1c8f6b2a10"
    pushed = client.post("/v1/test-sets", json=_entry(ctx, id=elsewhere))
    assert pushed.status_code == 201
    assert client.get(f"/v1/test-sets/{elsewhere}").json() == _entry(ctx, id=elsewhere)


@pytest.mark.parametrize("kind", ["accuracy", "pairwise", "regression", "human-review",
                                  "benchmark", "custom", "corrections"])  # fmt: skip
def test_every_kind_of_the_closed_enum_is_accepted(
    app: tuple[TestClient, Context], kind: str
) -> None:
    client, ctx = app
    assert client.post("/v1/test-sets", json=_entry(ctx, kind=kind)).status_code == 201


def test_list_shows_latest_versions_and_filters_by_kind(app: tuple[TestClient, Context]) -> None:
    client, ctx = app
    for change in ({}, {"version": "1.10.0"}, {"version": "1.9.0"},
                   {"id": "acme.pairs", "kind": "pairwise"}):  # fmt: skip
        client.post("/v1/test-sets", json=_entry(ctx, **change))
    listed = client.get("/v1/test-sets").json()
    assert [(e["id"], e["version"]) for e in listed["data"]] == [
        ("acme.drafting-accuracy", "1.10.0"), ("acme.pairs", "1.0.0"),
    ]  # fmt: skip
    assert [e["id"] for e in client.get("/v1/test-sets?kind=pairwise").json()["data"]] == [
        "acme.pairs"
    ]
    assert client.get("/v1/test-sets?kind=judged").status_code == 400
    versions = client.get("/v1/test-sets/acme.drafting-accuracy/versions").json()["data"]
    assert [v["version"] for v in versions] == ["1.0.0", "1.9.0", "1.10.0"]
    cases = client.get("/v1/test-sets/acme.drafting-accuracy/versions/1.0.0/cases?limit=1").json()
    assert cases["data"] == [{"input": "a", "expectedOutput": "b"}] and cases["hasMore"]
    assert client.get("/v1/test-sets/acme.drafting-accuracy/versions/2.0.0/cases").status_code == (
        404
    )
    missing = client.get("/v1/test-sets/nope")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "test-set-not-found")


def test_corrections_kind_lists_agent_sets_and_suites_built_before(
    app: tuple[TestClient, Context], corrected: dict[str, str]
) -> None:
    client, ctx = app
    client.post("/v1/test-sets", json=_entry(ctx, kind="corrections", id="acme.by-hand"))
    assert [e["id"] for e in client.get("/v1/test-sets").json()["data"]] == ["acme.by-hand"]
    listed = client.get("/v1/test-sets?kind=corrections").json()["data"]
    assert [e["id"] for e in listed] == ["acme-ops.article-picker~" + corrected["project"],
                                         "acme.article-picks", "acme.by-hand"]  # fmt: skip
    agent_set, suite = listed[0], listed[1]
    assert agent_set["kind"] == suite["kind"] == "corrections"
    assert agent_set["version"] == "1.0.0"
    assert agent_set["spec"] == {"source": "agent", "agentId": AGENT,
                                 "projectId": corrected["project"],
                                 "cases": {"active": 3, "retired": 0}}  # fmt: skip
    assert (suite["version"], suite["spec"]["source"]) == ("1.0.0", "judged-suite")


def test_agent_sets_and_built_suites_read_by_id_with_their_cases(
    app: tuple[TestClient, Context], corrected: dict[str, str]
) -> None:
    client, _ = app
    set_id = corrected["set"]
    assert client.get(f"/v1/test-sets/{set_id}").json()["spec"]["cases"]["active"] == 3
    versions = client.get(f"/v1/test-sets/{set_id}/versions").json()["data"]
    assert [(v["version"], v["spec"]["caseCount"]) for v in versions] == [("1.0.0", 3)]
    frozen = client.get(f"/v1/test-sets/{set_id}/versions/1.0.0/cases").json()["data"]
    assert [c["kind"] for c in frozen] == ["correction"] * 3
    for other in ("one", "1", "1.0", "01.0.0", "2.0.0"):
        assert client.get(f"/v1/test-sets/{set_id}/versions/{other}/cases").status_code == 404
    suite = client.get("/v1/test-sets/acme.article-picks").json()
    assert (suite["version"], suite["kind"]) == ("1.0.0", "corrections")
    built = client.get("/v1/test-sets/acme.article-picks/versions/1.0.0/cases").json()["data"]
    assert [len(c["items"]) for c in built] == [3, 3, 3]
    unfrozen = client.get(f"/v1/test-sets/{AGENT}~nope")
    assert unfrozen.status_code == 404


def test_the_cli_lists_test_sets_and_reads_a_versions_cases(
    app: tuple[TestClient, Context], corrected: dict[str, str]
) -> None:
    client, _ = app
    cli = test_sets_cli.test_sets
    listed = json.loads(invoke_cli(client, cli, ["list", "--kind=corrections"]).output)
    assert [e["id"] for e in listed["data"]] == [corrected["set"], "acme.article-picks"]
    assert json.loads(invoke_cli(client, cli, ["list"]).output)["data"] == []
    cases = invoke_cli(client, cli, ["cases", corrected["set"], "--version", "1.0.0"])
    assert len(json.loads(cases.output)["data"]) == 3
    assert invoke_cli(client, cli, ["cases", corrected["set"]]).exit_code == 2
    assert invoke_cli(client, cli, ["list", "--kind=judged"]).exit_code == 2
    shown = json.loads(invoke_cli(client, cli, ["show", "acme.article-picks"]).output)
    assert shown["id"] == "acme.article-picks"
    versions = json.loads(invoke_cli(client, cli, ["versions", corrected["set"]]).output)
    assert [v["version"] for v in versions["data"]] == ["1.0.0"]
