"""Guardrails checked where a deployed runtime checks them, through the pack service: a `halt`
fails the turn with its reason, `log-only` is recorded on it, an eval run counts the trips."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from desk_pack import AGENT, NO_SHOUTING, NOT_EMPTY, desk_served, turn
from kindgi.client import _models
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

Served = tuple[TestClient, Context]
BLOCKED = "Turn blocked by guardrail 'acme-desk.answer-not-empty': The answer is empty."


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("desk")
    with desk_served(root, versions=("1.0.0", "1.1.0", "2.0.0")) as served:
        yield served


def test_the_packs_guardrails_are_read_as_the_client_reads_them(desk: Served) -> None:
    client, _ = desk
    page = _models.GuardrailCollectionPage.model_validate(client.get("/v1/guardrails").json())
    assert [(g.id, g.action.on_violation, g.check) for g in page.data] == [
        (NOT_EMPTY, "halt", "acme-desk.checks.answer-not-empty"),
        (NO_SHOUTING, "log-only", "acme-desk.checks.no-shouting"),
    ]
    one = _models.Guardrail.model_validate(client.get(f"/v1/guardrails/{NO_SHOUTING}").json())
    assert (one.scope.when, one.severity) == ("runtime-only", "warn")  # type: ignore[union-attr]
    named = client.get("/v1/guardrails", params={"name": "acme-desk.no"}).json()["data"]
    assert [g["id"] for g in named] == [NO_SHOUTING]
    missing = client.get("/v1/guardrails/acme-desk.nothing")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "guardrail-not-found")


def test_a_halt_fails_the_turn_with_its_reason_and_keeps_no_answer(desk: Served) -> None:
    client, _ = desk
    answer = turn(client, "Say nothing.", version="1.0.0")
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert (error["code"], error["message"]) == ("guardrail-violation", BLOCKED)
    assert [v["guardrailId"] for v in error["details"]["violations"]] == [NOT_EMPTY]
    assert error["details"]["violations"][0]["result"] == {
        "passed": False,
        "reason": "The answer is empty.",
    }
    assert error["details"]["evaluationErrors"] == []
    run = client.get(f"/v1/runs/{error['details']['runId']}").json()
    assert run["status"] == "failed"
    assert run["failure"] == {"code": "guardrail-violation", "message": BLOCKED}
    assert "response" not in run["output"]
    messages = client.get(f"/v1/conversations/{run['agent']['conversationId']}/messages").json()
    assert [m["role"] for m in messages["data"]] == ["user"]


def test_log_only_is_recorded_on_a_turn_that_completes(desk: Served) -> None:
    client, _ = desk
    run = turn(client, "Shout hello there", version="1.0.0").json()
    assert run["status"] == "completed"
    assert run["output"]["response"]["content"] == "HELLO THERE"
    [violation] = run["output"]["violations"]
    assert (violation["guardrailId"], violation["action"], violation["severity"]) == (
        NO_SHOUTING,
        "log-only",
        "warn",
    )
    assert violation["result"] == {"passed": False, "reason": "The answer is in capitals."}
    calm = turn(client, "Hello", version="1.0.0").json()
    assert calm["output"]["violations"] == []


def test_outcomes_count_live_turns_only(desk: Served) -> None:
    client, _ = desk
    project = client.get("/v1/projects/default").json()["id"]
    began = client.get("/v1/projects/default").json()["createdAt"]
    turn(client, "Say nothing.", version="1.0.0")
    turn(client, "Hello", version="1.0.0")
    dry = {"agent": AGENT, "agentVersion": "1.0.0", "input": {"userMessage": "Say nothing."},
           "options": {"dryRun": True}}  # fmt: skip
    assert client.post("/v1/runs", json=dry).status_code == 422
    window = {"projectId": project, "from": began, "to": "2999-01-01T00:00:00Z"}
    found = client.get(f"/v1/guardrails/{NOT_EMPTY}/outcomes", params=window).json()
    outcomes = _models.GuardrailOutcomes.model_validate(found)
    live = client.get("/v1/runs", params={"limit": 100}).json()["data"]
    halted = [r for r in live if not r["dryRun"] and r["status"] == "failed"]
    assert outcomes.counts.blocked == len(halted)
    assert outcomes.counts.passed == len(live) - len(halted) - sum(r["dryRun"] for r in live)
    assert [str(b.run_id) for b in outcomes.recent_blocked] == [r["id"] for r in halted]
    assert {(v.agent_version) for v in outcomes.by_agent_version} <= {"1.0.0", "2.0.0"}


def correct_answer(client: TestClient, message: str) -> str:
    """A live turn on 1.0.0 whose answer someone marked right; its run id."""
    run = turn(client, message, version="1.0.0").json()
    item = {"key": "answer", "pointer": "/appended/1/content", "verdict": "right"}
    body = {"runId": run["id"], "items": [item], "answer": {"verdict": "right"}}
    assert client.post("/v1/corrections", json=body).status_code == 201
    return str(run["id"])


def try_version(client: TestClient, version: str) -> dict[str, Any]:
    project = client.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": version}}
    started = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
    assert started.status_code == 201, started.text
    for _ in range(400):
        run: dict[str, Any] = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
        if run["status"] not in ("pending", "running"):
            return run
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def test_an_eval_run_reports_which_guardrails_the_candidate_tripped(desk: Served) -> None:
    client, ctx = desk
    correct_answer(client, "Good morning")
    correct_answer(client, "Shout good evening")
    counted = every_row(ctx.settings.database_path)["guardrail_outcomes"]
    quiet = try_version(client, "2.0.0")
    cases = quiet["result"]["perCase"]
    assert [c.get("guardrailsTripped") for c in cases] == [[NOT_EMPTY]] * len(cases)
    assert [(c["passedBefore"], c["passedAll"], "error" in c) for c in cases] == [
        (True, False, False)
    ] * len(cases)
    reasons = {c["correctionDifferences"][0]["differences"][0]["reason"] for c in cases}
    assert reasons == {"the version gave no answer text"}
    assert quiet["result"]["summary"]["guardrailsTripped"] == {NOT_EMPTY: len(cases)}
    same = try_version(client, "1.1.0")
    assert all("guardrailsTripped" not in c for c in same["result"]["perCase"])
    assert "guardrailsTripped" not in same["result"]["summary"]
    assert every_row(ctx.settings.database_path)["guardrail_outcomes"] == counted
