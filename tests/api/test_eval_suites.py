"""`/v1/eval-suites`: building judged versions from corrected runs, and the 0.1 operations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from correction_rows import (
    articles_of,
    at,
    bulk_corrections,
    correct,
    invoke_cli,
    judge_class,
    tutorial_corrections,
)
from factories import AGENT, QUESTIONS, SEARCH, recorded_run, served, tutorial_runs
from kindgi.client import _models as models
from starlette.testclient import TestClient

from kindgi_dev.cli import eval_suites as eval_suites_cli
from kindgi_dev.services.context import Context
from kindgi_dev.store.ids import unpacked

BUILD = "/v1/eval-suites/acme.article-picks/versions/from-judgments"
CASES = "/v1/eval-suites/acme.article-picks/versions/1.0.0/cases"
PASSWORD, CHARGED, PACKAGE = QUESTIONS
SPEC_BUILT = {"suiteId": "acme.article-picks", "version": "1.0.0", "kind": "judged",
              "caseCount": 3, "truncated": False}  # fmt: skip
SPEC_CASES = [
    (CHARGED, ["kb-201 1 yes, 0 no", "kb-203 0 yes, 1 no", "kb-202 0 yes, 1 no"]),
    (PASSWORD, ["kb-101 1 yes, 0 no", "kb-102 0 yes, 1 no", "kb-103 0 yes, 1 no"]),
    (PACKAGE, ["kb-301 1 yes, 0 no", "kb-303 0 yes, 1 no", "kb-201 0 yes, 1 no"]),
]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context]]:
    with served(tmp_path, versions=("0.1.0", "0.2.0")) as pair:
        yield pair


@pytest.fixture
def project(app: tuple[TestClient, Context]) -> str:
    return str(app[0].get("/v1/projects/default").json()["id"])


@pytest.fixture
def tutorial(app: tuple[TestClient, Context]) -> dict[str, str]:
    """The spec's three runs, corrected as it does: question → run id."""
    run_ids = tutorial_runs(app[1])
    tutorial_corrections(app[1], run_ids)
    return run_ids


def _build(client: TestClient, project: str, suite: str = "acme.article-picks",
           **body: Any) -> Any:  # fmt: skip
    path = f"/v1/eval-suites/{suite}/versions/from-judgments"
    return client.post(path, json={"version": "1.0.0", "projectId": project, "agentId": AGENT,
                                   **body})  # fmt: skip


def _counts(case: dict[str, Any]) -> list[str]:
    return [f"{item['key']} {item['yes']} yes, {item['no']} no" for item in case["items"]]


def _case_ids(client: TestClient, suite: str, version: str = "1.0.0") -> list[str]:
    page = client.get(f"/v1/eval-suites/{suite}/versions/{version}/cases").json()
    return [case["caseId"] for case in page["data"]]


def test_the_tutorial_builds_the_specs_three_cases(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, _ = app
    built = _build(client, project)
    assert built.status_code == 201
    assert built.json() == SPEC_BUILT
    page = client.get(CASES).json()
    assert [(case["input"], _counts(case)) for case in page["data"]] == SPEC_CASES
    assert not page["hasMore"]


def test_a_case_keeps_the_run_as_corrected_with_its_items_summed(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, ctx = app
    ctx.db.run("UPDATE runs SET output = '{}' WHERE id = ?", (tutorial[PASSWORD],))
    _build(client, project)
    case = client.get(CASES).json()["data"][1]
    assert case["caseId"] == tutorial[PASSWORD]
    assert case["subject"] == {"kind": "agent", "id": AGENT, "version": "0.1.0"}
    assert case["output"]["output"]["articles"][0]["id"] == "kb-101", "the copy, not the run now"
    assert case["context"]["toolEnv"] == {SEARCH: {}}
    first = case["items"][0]
    judgment = unpacked(
        ctx.db.one(
            "SELECT v.id FROM verdicts v JOIN corrections c ON c.seq = v.correction_seq "
            "WHERE c.run_id = ? AND v.item_key = 'kb-101'",
            (tutorial[PASSWORD],),
        )["id"]
    )
    assert first == {
        "key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "yes": 1, "no": 0,
        "yesWeight": 1, "totalWeight": 1,
        "restricted": {"yesWeight": 0, "totalWeight": 0, "judgmentIds": []},
        "judgmentIds": [judgment], "reasons": [],
    }  # fmt: skip
    assert "corrections" not in case and "erased" not in case


def test_a_taken_version_is_refused_and_a_built_one_never_changes(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, ctx = app
    _build(client, project)
    before = client.get(CASES).json()
    again = _build(client, project)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "eval-suite-already-registered"
    assert again.json()["error"]["message"] == (
        'Eval suite "acme.article-picks" version "1.0.0" is already registered.'
    )
    run = recorded_run(ctx, PASSWORD)
    correct(ctx, run, articles_of(run, ctx), when=50)
    assert client.get(CASES).json() == before
    assert _build(client, project, version="1.1.0").json()["caseCount"] == 4
    other = client.post("/v1/projects", json={"name": "Other", "slug": "other"}).json()["id"]
    mismatch = _build(client, other, version="2.0.0")
    assert mismatch.json()["error"]["code"] == "eval-suite-project-mismatch"


def test_weights_restricted_reasons_and_decisions_of_a_case(
    app: tuple[TestClient, Context], project: str
) -> None:
    client, ctx = app
    run = recorded_run(ctx, PASSWORD)
    experts = judge_class(ctx, 3)
    items = articles_of(run, ctx)
    correct(ctx, run, items, reasons={"kb-101": "Resets the password"})
    decisions = {"verdict": "wrong", "shouldCall": [{"toolId": SEARCH, "args": {"query": "pw"}}],
                 "mustNotCall": ["acme-ops.log-suggestion"]}  # fmt: skip
    correct(ctx, run, [(k, p, r, "no") for k, p, r, _ in items], when=5, judge_class_id=experts,
            restricted=True, participant_id="end-user-1", decisions=decisions)  # fmt: skip
    _build(client, project)
    (case,) = client.get(CASES).json()["data"]
    first = case["items"][0]
    assert (first["yes"], first["no"], first["yesWeight"], first["totalWeight"]) == (1, 1, 1, 4)
    assert first["restricted"]["yesWeight"] == 0 and first["restricted"]["totalWeight"] == 3
    assert len(first["restricted"]["judgmentIds"]) == 1 and len(first["judgmentIds"]) == 2
    assert first["reasons"] == [{"verdict": "yes", "reason": "Resets the password"}]
    (correction,) = case["corrections"]
    assert correction["calls"] == decisions["shouldCall"]
    assert correction["notCalled"] == ["acme-ops.log-suggestion"]
    assert (correction["judgeClassId"], correction["restricted"]) == (experts, True)
    only_experts = _build(client, project, version="1.1.0", judgeClassIds=[experts])
    assert only_experts.json()["caseCount"] == 1
    (narrow,) = client.get(CASES.replace("1.0.0", "1.1.0")).json()["data"]
    assert (narrow["items"][0]["yes"], narrow["items"][0]["no"]) == (0, 1)


def test_min_judgments_agent_version_and_time_narrow_the_build(
    app: tuple[TestClient, Context], project: str
) -> None:
    client, ctx = app
    one = recorded_run(ctx, PASSWORD)
    correct(ctx, one, articles_of(one, ctx)[:1], when=1)
    three = recorded_run(ctx, CHARGED)
    correct(ctx, three, articles_of(three, ctx), when=2)
    newer = recorded_run(ctx, PACKAGE, version="0.2.0")
    correct(ctx, newer, articles_of(newer, ctx), when=3)
    builds = {
        "x.all": ({}, [newer, three, one]),
        "x.min": ({"minJudgments": 2}, [newer, three]),
        "x.version": ({"agentVersion": "0.1.0"}, [three, one]),
        "x.since": ({"since": at(2)}, [newer, three]),
        "x.until": ({"until": at(2)}, [one]),
        "x.window": ({"since": "2026-11-02T10:14:05.000+01:00", "until": at(3)}, [three]),
    }
    for suite, (body, expected) in builds.items():
        assert _build(client, project, suite=suite, **body).status_code == 201
        assert _case_ids(client, suite) == expected, suite


def test_segments_keep_runs_at_or_below_the_path(
    app: tuple[TestClient, Context], project: str
) -> None:
    client, ctx = app
    acme, eu = {"key": "company", "value": "acme"}, {"key": "team", "value": "eu"}
    runs = {
        "acme": recorded_run(ctx, PASSWORD, segments=[acme]),
        "acme-eu": recorded_run(ctx, PASSWORD, segments=[acme, eu]),
        "other": recorded_run(ctx, PASSWORD, segments=[{"key": "company", "value": "other"}]),
        "none": recorded_run(ctx, PASSWORD),
    }
    for n, run in enumerate(runs.values()):
        correct(ctx, run, articles_of(run, ctx), when=n)
    _build(client, project, suite="x.acme", segments=[acme])
    assert _case_ids(client, "x.acme") == [runs["acme-eu"], runs["acme"]]
    _build(client, project, suite="x.eu", segments=[acme, eu])
    assert _case_ids(client, "x.eu") == [runs["acme-eu"]]
    _build(client, project, suite="x.any")
    assert len(_case_ids(client, "x.any")) == 4


def test_replays_other_agents_projects_and_removed_corrections_never_become_cases(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, ctx = app
    replay = recorded_run(ctx, PASSWORD, replay_of=tutorial[PASSWORD])
    correct(ctx, replay, articles_of(replay, ctx), when=10)
    other = client.post("/v1/projects", json={"name": "Other", "slug": "other"}).json()["id"]
    elsewhere = recorded_run(ctx, PASSWORD, project_id=other)
    correct(ctx, elsewhere, articles_of(elsewhere, ctx), when=11)
    ctx.db.run("UPDATE corrections SET status = 'removed' WHERE run_id = ?", (tutorial[PACKAGE],))
    _build(client, project)
    assert _case_ids(client, "acme.article-picks") == [tutorial[CHARGED], tutorial[PASSWORD]]


def test_an_erased_run_is_an_erased_case(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, ctx = app
    ctx.db.run("UPDATE runs SET content_erased_at = ? WHERE id = ?", (at(9), tutorial[CHARGED]))
    _build(client, project)
    erased = client.get(CASES).json()["data"][0]
    assert erased == {"caseId": tutorial[CHARGED], "subject": erased["subject"], "input": None,
                      "output": None, "items": [], "erased": True}  # fmt: skip


def test_a_build_holds_at_most_1000_cases(app: tuple[TestClient, Context], project: str) -> None:
    client, ctx = app
    bulk_corrections(ctx, 1001, project_id=project)
    built = _build(client, project)
    assert built.json()["caseCount"] == 1000 and built.json()["truncated"] is True
    page = client.get(CASES, params={"limit": 100}).json()
    assert len(page["data"]) == 100 and page["hasMore"]
    second = client.get(CASES, params={"limit": 100, "cursor": page["nextCursor"]}).json()
    assert not {c["caseId"] for c in page["data"]} & {c["caseId"] for c in second["data"]}


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"version": "1.0"}, 400, "validation-failed"),
        ({"flowId": "acme.flow"}, 400, "validation-failed"),
        ({"agentId": None, "agentVersion": "0.1.0"}, 400, "validation-failed"),
        ({"projectId": "nope"}, 404, "project-not-found"),
        ({"since": "yesterday"}, 400, "validation-failed"),
        ({"minJudgments": 0}, 400, "validation-failed"),
        ({"segments": [{"key": "Company", "value": "acme"}]}, 400, "validation-failed"),
    ],
)
def test_a_bad_build_is_refused_and_writes_nothing(
    app: tuple[TestClient, Context], project: str, change: dict[str, Any], status: int, code: str
) -> None:
    client, ctx = app
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT, **change}
    answer = client.post(BUILD, json={k: v for k, v in body.items() if v is not None})
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert ctx.db.one("SELECT count(*) AS n FROM eval_suites")["n"] == 0


def _publish(client: TestClient, project: str, **body: Any) -> Any:
    return client.post("/v1/eval-suites", json={
        "id": "acme.accuracy", "projectId": project, "version": "1.0.0", "kind": "accuracy",
        "spec": {"cases": []}, **body,
    })  # fmt: skip


def test_publish_get_list_and_versions(app: tuple[TestClient, Context], project: str) -> None:
    client, ctx = app
    assert _publish(client, project).json() == {"suiteId": "acme.accuracy", "version": "1.0.0"}
    assert _publish(client, project, version="1.10.0", description="more").status_code == 201
    assert _publish(client, project, version="1.2.0").status_code == 201
    assert _publish(client, project).status_code == 409
    refused = [({"tenantId": "00000000-0000-4000-8000-000000000000"}, "validation-failed"),
               ({"kind": "judged"}, "validation-failed"), ({"version": "v1"}, "validation-failed"),
               ({"spec": [1]}, "validation-failed"), ({"kind": "other"}, "validation-failed"),
               ({"projectId": "nope"}, "bad-input")]  # fmt: skip
    for change, code in refused:
        answer = _publish(client, project, **{"version": "9.0.0", **change})
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, code), change
    latest = client.get("/v1/eval-suites/acme.accuracy").json()
    assert latest == {"id": "acme.accuracy", "tenantId": ctx.tenant_id, "projectId": project,
                      "version": "1.10.0", "kind": "accuracy", "description": "more",
                      "spec": {"cases": []}}  # fmt: skip
    versions = client.get("/v1/eval-suites/acme.accuracy/versions").json()["data"]
    assert [v["version"] for v in versions] == ["1.0.0", "1.2.0", "1.10.0"]
    _publish(client, project, id="other.suite", kind="custom")
    listed = client.get("/v1/eval-suites").json()["data"]
    assert [(s["id"], s["version"]) for s in listed] == [("acme.accuracy", "1.10.0"),
                                                         ("other.suite", "1.0.0")]  # fmt: skip
    assert [s["id"] for s in client.get("/v1/eval-suites?kind=custom").json()["data"]] == [
        "other.suite"
    ]
    assert len(client.get("/v1/eval-suites?name=acme.").json()["data"]) == 1
    scoped = client.get(f"/v1/eval-suites?scopeKind=project&scopeId={project}").json()["data"]
    assert len(scoped) == 2
    assert client.get("/v1/eval-suites?scopeKind=project").json()["error"]["code"] == (
        "scope-invalid"
    )
    assert client.get("/v1/eval-suites/nope").json()["error"]["code"] == "eval-suite-not-found"
    assert client.get("/v1/eval-suites/acme.accuracy?projectId=other").status_code == 404


def test_unregister_and_reinstate_a_version(app: tuple[TestClient, Context], project: str) -> None:
    client, _ = app
    _publish(client, project)
    _publish(client, project, version="1.1.0")
    base = "/v1/eval-suites/acme.accuracy/versions/1.1.0"
    assert client.post(f"{base}/unregister").json() == {
        "suiteId": "acme.accuracy",
        "version": "1.1.0",
        "unregistered": True,
    }
    assert client.post(f"{base}/unregister").status_code == 409
    assert client.get("/v1/eval-suites/acme.accuracy").json()["version"] == "1.0.0"
    assert client.get(base).json()["unregisteredAt"]
    versions = "/v1/eval-suites/acme.accuracy/versions"
    assert len(client.get(versions).json()["data"]) == 1
    assert len(client.get(f"{versions}?includeTombstoned=true").json()["data"]) == 2
    client.post("/v1/eval-suites/acme.accuracy/versions/1.0.0/unregister")
    assert client.get("/v1/eval-suites").json()["data"] == []
    retired = client.get("/v1/eval-suites?includeRetired=true").json()["data"]
    assert [(s["version"], "unregisteredAt" in s) for s in retired] == [("1.1.0", True)]
    assert client.post(f"{base}/reinstate").json() == {
        "suiteId": "acme.accuracy",
        "version": "1.1.0",
        "wasTombstoned": True,
    }
    assert client.post(f"{base}/reinstate").json()["wasTombstoned"] is False
    assert client.post(f"{base.replace('1.1.0', '3.0.0')}/reinstate").status_code == 404


def test_the_cli_builds_lists_shows_and_reads_cases(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, _ = app
    cli = eval_suites_cli.eval_suites
    args = ["from-judgments", "acme.article-picks", "--suite-version=1.0.0", f"--agent={AGENT}"]
    built = invoke_cli(client, cli, args)
    assert built.exit_code == 0, built.output
    assert json.loads(built.output) == SPEC_BUILT
    again = invoke_cli(client, cli, [*args, f"--project={project}"])
    assert again.exit_code == 1
    assert again.output.strip() == (
        'Error [eval-suite-already-registered]: Eval suite "acme.article-picks" version "1.0.0" '
        "is already registered."
    )
    cases = json.loads(invoke_cli(client, cli, ["cases", "acme.article-picks",
                                                "--suite-version=1.0.0"]).output)  # fmt: skip
    assert [(c["input"], _counts(c)) for c in cases["data"]] == SPEC_CASES
    shown = json.loads(invoke_cli(client, cli, ["show", "acme.article-picks"]).output)
    assert (shown["kind"], shown["version"]) == ("judged", "1.0.0")
    listed = json.loads(invoke_cli(client, cli, ["list", "--kind", "judged"]).output)
    assert [s["id"] for s in listed["data"]] == ["acme.article-picks"]
    usage = [
        ["from-judgments", "x.y", f"--agent={AGENT}"],
        ["from-judgments", "x.y", "--suite-version=1.0.0"],
        ["from-judgments", "x.y", "--suite-version=1.0.0", f"--agent={AGENT}", "--since=soon"],
        ["from-judgments", "x.y", "--suite-version=1.0.0", f"--agent={AGENT}", "--segment=x"],
        ["from-judgments", "x.y", "--suite-version=1.0.0", f"--agent={AGENT}",
         "--min-judgments=a"],
        ["cases", "x.y"],
        ["list", "--kind=nope"],
    ]  # fmt: skip
    for bad in usage:
        assert invoke_cli(client, cli, bad).exit_code == 2, bad


def test_the_official_clients_models_read_every_answer(
    app: tuple[TestClient, Context], project: str, tutorial: dict[str, str]
) -> None:
    client, _ = app
    models.BuildJudgedSuiteResult.model_validate(_build(client, project).json())
    page = models.JudgedEvalCaseCollectionPage.model_validate(client.get(CASES).json())
    assert [item.yes for item in page.data[1].items] == [1, 0, 0]
    models.EvalSuite.model_validate(client.get("/v1/eval-suites/acme.article-picks").json())
    models.EvalSuiteCollectionPage.model_validate(client.get("/v1/eval-suites").json())
    models.PublishEvalSuiteResult.model_validate(_publish(client, project).json())
    base = "/v1/eval-suites/acme.accuracy/versions/1.0.0"
    models.UnregisterEvalSuiteResult.model_validate(client.post(f"{base}/unregister").json())
    models.ReinstateEvalSuiteVersionResult.model_validate(client.post(f"{base}/reinstate").json())
