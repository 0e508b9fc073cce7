"""An agent's test set over HTTP: which corrections are cases, hand cases, retiring, freezing."""

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
    set_column,
    tutorial_corrections,
)
from factories import AGENT, QUESTIONS, recorded_run, served, tutorial_runs
from starlette.testclient import TestClient

from kindgi_dev.cli import agent_test_set
from kindgi_dev.services import test_set_versions
from kindgi_dev.services.context import Context

SET = f"/v1/agents/{AGENT}/test-set"
SPEC_ORDER = [
    ["kb-201 right", "kb-203 wrong", "kb-202 wrong"],
    ["kb-101 right", "kb-102 wrong", "kb-103 wrong"],
    ["kb-301 right", "kb-303 wrong", "kb-201 wrong"],
]
PASSWORD, CHARGED, PACKAGE = QUESTIONS


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context]]:
    with served(tmp_path) as pair:
        yield pair


@pytest.fixture
def tutorial(app: tuple[TestClient, Context]) -> dict[str, Any]:
    """The spec's three runs, corrected as it does: question → {run, correction}."""
    run_ids = tutorial_runs(app[1])
    corrections = tutorial_corrections(app[1], run_ids)
    return {q: {"run": run_ids[q], "correction": corrections[q]} for q in QUESTIONS}


def _expected(case: dict[str, Any]) -> list[str]:
    return [f"{item['key']} {item['verdict']}" for item in case["expect"].get("items") or []]


def _cases(client: TestClient, query: str = "") -> list[dict[str, Any]]:
    answer = client.get(f"{SET}/cases{query}")
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


def test_the_tutorial_set_reads_three_cases_as_the_spec_prints(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    found = client.get(SET).json()
    project_id = client.get("/v1/projects/default").json()["id"]
    assert found == {"id": f"{AGENT}~{project_id}", "agentId": AGENT, "projectId": project_id,
                     "cases": {"active": 3, "retired": 0}}  # fmt: skip
    cases = _cases(client)
    assert [(c["kind"], _expected(c)) for c in cases] == [("correction", e) for e in SPEC_ORDER]
    password = cases[1]
    assert password["id"] == tutorial[PASSWORD]["correction"]
    assert password["runId"] == tutorial[PASSWORD]["run"]
    assert password["expect"]["items"][0] == {
        "key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"
    }  # fmt: skip
    assert (password["madeOn"], password["projectId"], password["expert"]) == (
        "0.1.0", project_id, False,
    )  # fmt: skip
    assert password["addedBy"] == {"kind": "user", "id": ctx.identity.user_id}
    assert password["addedAt"] == password["updatedAt"] == at(1)


STATUSES = [("open", True), ("fixed", True), ("with-owner", True), ("wont-fix", False),
            ("removed", False)]  # fmt: skip


@pytest.mark.parametrize(("status", "is_case"), STATUSES)
def test_a_corrections_status_decides_whether_it_is_a_case(
    app: tuple[TestClient, Context], tutorial: dict[str, Any], status: str, is_case: bool
) -> None:
    client, ctx = app
    set_column(ctx, tutorial[PASSWORD]["correction"], "status", status)
    ids = [c["id"] for c in _cases(client)]
    assert (tutorial[PASSWORD]["correction"] in ids) is is_case
    assert client.get(SET).json()["cases"]["active"] == (3 if is_case else 2)


@pytest.mark.parametrize(
    ("column", "value"),
    [("replaced_by", "a-later-correction"), ("erased_at", "2026-11-03T00:00:00.000Z")],
)
def test_replaced_and_erased_corrections_are_not_cases(
    app: tuple[TestClient, Context], tutorial: dict[str, Any], column: str, value: str
) -> None:
    client, ctx = app
    set_column(ctx, tutorial[PASSWORD]["correction"], column, value)
    assert tutorial[PASSWORD]["correction"] not in [c["id"] for c in _cases(client)]
    assert client.get(SET).json()["cases"] == {"active": 2, "retired": 0}


def test_a_correction_of_a_replay_is_not_a_case(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    replay = recorded_run(ctx, PASSWORD, replay_of=tutorial[PASSWORD]["run"])
    correct(ctx, replay, articles_of(replay, ctx), when=10)
    assert len(_cases(client)) == 3


def test_a_correction_with_nothing_left_to_check_is_not_a_case(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    ctx.db.run(
        "UPDATE verdicts SET unregistered_at = ? "
        "WHERE correction_seq = (SELECT seq FROM corrections WHERE id = ?)",
        (at(20), tutorial[PASSWORD]["correction"]),
    )
    assert len(_cases(client)) == 2
    set_column(ctx, tutorial[PASSWORD]["correction"], "answer", json.dumps({"verdict": "right"}))
    kept = [c for c in _cases(client) if c["id"] == tutorial[PASSWORD]["correction"]]
    assert kept[0]["expect"] == {"answer": {"verdict": "right"}}


def test_decisions_answers_and_restricted_corrections_show_in_the_case(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    run = recorded_run(ctx, PASSWORD)
    decisions = {"verdict": "wrong", "shouldCall": [{"toolId": "acme-ops.log-suggestion"}],
                 "mustNotCall": ["acme-ops.search-articles"]}  # fmt: skip
    correct(ctx, run, [], decisions=decisions, answer={"verdict": "wrong", "why": "Too long"},
            restricted=True)  # fmt: skip
    (case,) = _cases(client)
    assert case["expect"] == {"decisions": decisions, "answer": {"verdict": "wrong",
                                                                 "why": "Too long"}}  # fmt: skip
    assert case["expert"] is True


def test_only_this_agents_corrections_in_this_project_are_cases(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    other = client.post("/v1/projects", json={"name": "Other", "slug": "other"}).json()["id"]
    run = recorded_run(ctx, PASSWORD, project_id=other)
    correct(ctx, run, articles_of(run, ctx), when=30)
    assert len(_cases(client)) == 3
    assert [_expected(c) for c in _cases(client, f"?projectId={other}")] == [SPEC_ORDER[1]]
    assert client.get(f"{SET}?projectId=nope").json()["error"]["code"] == "project-not-found"
    assert client.get("/v1/agents/no.such/test-set").json()["error"]["code"] == "agent-not-found"


def test_cases_page_newest_first_without_overlap(app: tuple[TestClient, Context]) -> None:
    client, ctx = app
    project_id = client.get("/v1/projects/default").json()["id"]
    bulk_corrections(ctx, 30, project_id=project_id)
    first = client.get(f"{SET}/cases").json()
    assert len(first["data"]) == 25 and first["hasMore"]
    rest = client.get(f"{SET}/cases", params={"cursor": first["nextCursor"]}).json()
    assert len(rest["data"]) == 5 and not rest["hasMore"] and "nextCursor" not in rest
    times = [c["addedAt"] for c in first["data"] + rest["data"]]
    assert times == sorted(times, reverse=True) and len(set(times)) == 30
    assert client.get(f"{SET}/cases?cursor=%%%").status_code == 400


def _hand_body(run_id: str) -> dict[str, Any]:
    return {"runId": run_id,
            "items": [{"key": "kb-301", "pointer": "/output/articles/0", "rank": 0,
                       "verdict": "right"}]}  # fmt: skip


def test_a_hand_case_is_an_experts_case_added_by_the_caller(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    added = client.post(f"{SET}/cases", json=_hand_body(tutorial[PACKAGE]["run"]))
    assert added.status_code == 201, added.text
    case = added.json()
    assert case["id"].startswith("case-") and case["kind"] == "hand" and case["expert"] is True
    assert case["addedBy"] == {"kind": "user", "id": ctx.identity.user_id}
    assert (case["runId"], case["madeOn"]) == (tutorial[PACKAGE]["run"], "0.1.0")
    assert _expected(case) == ["kb-301 right"]
    assert client.get(SET).json()["cases"] == {"active": 4, "retired": 0}
    assert [c["id"] for c in _cases(client, "?kind=hand")] == [case["id"]]
    assert len(_cases(client, "?kind=correction")) == 3
    assert _cases(client)[0]["id"] == case["id"]
    count = ctx.db.one("SELECT count(*) AS n FROM corrections")["n"]
    assert count == 3, "a hand case is not a correction"


def test_a_hand_case_needs_a_finished_non_replay_run_of_the_agent(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    run = tutorial[PACKAGE]["run"]
    ctx.db.run(
        "INSERT INTO runs (id, tenant_id, project_id, flow_id, flow_version, status, created_at, "
        "updated_at, agent_id, agent_version, input) SELECT 'other-run', tenant_id, project_id, "
        "flow_id, flow_version, status, created_at, updated_at, 'other.agent', '1.0.0', input "
        "FROM runs WHERE id = ?",
        (run,),
    )
    refused = [
        ({"runId": "nope", "items": _hand_body(run)["items"]}, 404, "run-not-found"),
        (_hand_body("other-run"), 400, "validation-failed"),
        (_hand_body(recorded_run(ctx, PACKAGE, replay_of=run)), 400, "validation-failed"),
        (_hand_body(recorded_run(ctx, PACKAGE, finish=False)), 409, "run-not-finished"),
        ({"runId": run}, 400, "validation-failed"),
        ({**_hand_body(run), "items": [{"key": "kb-301", "pointer": "/output/articles/9",
                                         "verdict": "right"}]}, 400, "validation-failed"),
        ({"runId": run, "decisions": {"verdict": "wrong", "shouldCall": [{"toolId": "x.y"}]}},
         400, "validation-failed"),
        ({**_hand_body(run), "items": [{"key": "kb-301", "verdict": "maybe"}]}, 400,
         "validation-failed"),
    ]  # fmt: skip
    for body, status, code in refused:
        answer = client.post(f"{SET}/cases", json=body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body
    assert ctx.db.one("SELECT count(*) AS n FROM hand_cases")["n"] == 0


def test_a_retired_case_is_kept_hidden_and_never_retired_again(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    case_id = tutorial[PACKAGE]["correction"]
    retire = f"{SET}/cases/{case_id}/retire"
    answer = client.post(retire, json={"reason": "kb-301 was merged into kb-302"})
    assert answer.status_code == 200, answer.text
    retired = answer.json()["retired"]
    assert retired["reason"] == "kb-301 was merged into kb-302"
    assert retired["by"] == {"kind": "user", "id": ctx.identity.user_id} and retired["at"]
    assert client.get(SET).json()["cases"] == {"active": 2, "retired": 1}
    assert case_id not in [c["id"] for c in _cases(client)]
    shown = {c["id"]: c for c in _cases(client, "?include=retired")}
    assert shown[case_id]["retired"] == retired
    again = client.post(retire, json={"reason": "again"})
    assert (again.status_code, again.json()["error"]["code"]) == (409, "test-case-retired")
    status = ctx.db.one("SELECT status FROM corrections WHERE id = ?", (case_id,))["status"]
    assert status == "open", "retiring a case leaves its correction's status alone"


def test_retiring_needs_a_reason_and_a_case(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    case_id = tutorial[PACKAGE]["correction"]
    assert client.post(f"{SET}/cases/{case_id}/retire", json={}).status_code == 400
    assert client.post(f"{SET}/cases/{case_id}/retire", json={"reason": "  "}).status_code == 400
    missing = client.post(f"{SET}/cases/case-nope/retire", json={"reason": "x"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "test-case-not-found")
    set_column(ctx, case_id, "status", "wont-fix")
    out = client.post(f"{SET}/cases/{case_id}/retire", json={"reason": "x"}).json()["error"]
    assert out["message"] == f"Correction {case_id} is not a case: its status is wont-fix."
    hand = client.post(f"{SET}/cases", json=_hand_body(tutorial[PASSWORD]["run"])).json()
    assert client.post(f"{SET}/cases/{hand['id']}/retire", json={"reason": "x"}).json()["retired"]
    assert ctx.db.one("SELECT count(*) AS n FROM case_retirements")["n"] == 1


def test_a_frozen_version_keeps_its_cases_whatever_happens_later(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    frozen = client.post(f"{SET}/freeze")
    assert frozen.status_code == 201
    version = frozen.json()
    project_id = client.get("/v1/projects/default").json()["id"]
    assert version == {"testSetId": f"{AGENT}~{project_id}", "version": "1.0.0"}
    assert client.get(SET).json()["frozenVersion"] == version
    path = f"/v1/test-sets/{version['testSetId']}/versions/1.0.0/cases"
    before = client.get(path).json()["data"]
    assert [{k: v for k, v in case.items() if k != "run"} for case in before] == _cases(client)
    copy = next(case["run"] for case in before if case["runId"] == tutorial[PASSWORD]["run"])
    assert copy["input"] == {"userMessage": PASSWORD}
    assert (copy["agentId"], copy["agentVersion"]) == (AGENT, "0.1.0")
    assert [call["toolId"] for call in copy["toolCalls"]] == ["acme-ops.search-articles"]
    assert [a["id"] for a in copy["output"]["output"]["articles"]] == ["kb-101", "kb-102", "kb-103"]
    set_column(ctx, tutorial[PASSWORD]["correction"], "status", "wont-fix")
    ctx.db.run("UPDATE verdicts SET verdict = 'yes' WHERE correction_seq = "
               "(SELECT seq FROM corrections WHERE id = ?)",
               (tutorial[CHARGED]["correction"],))  # fmt: skip
    assert len(_cases(client)) == 2
    assert client.get(path).json()["data"] == before
    assert client.post(f"{SET}/freeze").json()["version"] == "2.0.0"
    assert len(client.get(path.replace("/1.0.0/", "/2.0.0/")).json()["data"]) == 2
    assert client.get(path.replace("/1.0.0/", "/3.0.0/")).status_code == 404


def test_a_set_larger_than_a_freeze_page_is_frozen_whole_and_in_order(
    app: tuple[TestClient, Context], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Freezing stores a page of cases at a time, so a large set is never all in memory."""
    client, ctx = app
    monkeypatch.setattr(test_set_versions, "FREEZE_PAGE", 4)
    project_id = client.get("/v1/projects/default").json()["id"]
    bulk_corrections(ctx, 10, project_id=project_id)
    version = client.post(f"{SET}/freeze").json()
    path = f"/v1/test-sets/{version['testSetId']}/versions/1.0.0/cases"
    frozen = client.get(path, params={"limit": 100}).json()["data"]
    assert [case["id"] for case in frozen] == [case["id"] for case in _cases(client, "?limit=100")]
    assert len(frozen) == 10
    assert ctx.db.one("SELECT case_count FROM test_set_versions")["case_count"] == 10


def test_a_correction_made_through_the_api_is_a_case(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, ctx = app
    run = recorded_run(ctx, PASSWORD)
    body = {"runId": run, "items": [{"key": "kb-101", "pointer": "/output/articles/0",
                                     "rank": 0, "verdict": "right"}]}  # fmt: skip
    made = client.post("/v1/corrections", json=body)
    assert made.status_code in (200, 201), made.text
    newest = _cases(client)[0]
    assert (newest["id"], _expected(newest)) == (made.json()["id"], ["kb-101 right"])


def test_the_cli_reads_the_set_adds_and_retires_cases(
    app: tuple[TestClient, Context], tutorial: dict[str, Any]
) -> None:
    client, _ = app
    shown = invoke_cli(client, agent_test_set.test_set, [AGENT])
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.output)
    assert printed["testSet"]["cases"] == {"active": 3, "retired": 0}
    assert [_expected(c) for c in printed["cases"]["data"]] == SPEC_ORDER
    run = tutorial[PACKAGE]["run"]
    args = ["add-case", "--agent", AGENT, "--run", run, "--item", "kb-301", "--pointer",
            "/output/articles/0", "--rank", "0", "--yes"]  # fmt: skip
    added = json.loads(invoke_cli(client, agent_test_set.test_set, args).output)
    assert added["kind"] == "hand" and _expected(added) == ["kb-301 right"]
    args = ["retire-case", added["id"], "--agent", AGENT, "--reason", "merged"]
    assert (
        json.loads(invoke_cli(client, agent_test_set.test_set, args).output)["retired"]["reason"]
        == "merged"
    )
    hand = invoke_cli(
        client, agent_test_set.test_set, [AGENT, "--include-retired", "--kind", "hand"]
    )
    assert [c["id"] for c in json.loads(hand.output)["cases"]["data"]] == [added["id"]]
    again = invoke_cli(client, agent_test_set.test_set, args)
    assert again.exit_code == 1 and "Error [test-case-retired]" in again.output
