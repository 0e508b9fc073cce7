"""A live run no person started pauses at a tool that needs a person's yes, waits in SQLite
(through a restart too), and goes on when a second person's key approves or rejects it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from desk_pack import AGENT, REFUND, desk_served, turn
from kindgi.client import _models
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

Served = tuple[TestClient, Context]


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with desk_served(tmp_path_factory.mktemp("desk"), versions=("1.0.0", "1.1.0")) as served:
        yield served


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def service_key(client: TestClient) -> str:
    """A key acting for a service account: its runs are ones no person started."""
    owner = {"kind": "service-account", "id": str(uuid.uuid4())}
    minted = client.post("/v1/tokens", json={"for": owner, "label": "nightly job"})
    assert minted.status_code == 201, minted.text
    return str(minted.json()["token"])


def reviewer_key(client: TestClient) -> tuple[str, str]:
    """A second person's key, on the roster as a standard reviewer; (token, user id)."""
    minted = client.post("/v1/tokens", json={"label": "reviewer"}).json()
    user = minted["principal"]["id"]
    body = {"userId": user, "role": "standard", "displayName": "Second reviewer"}
    assert client.post("/v1/approvals/reviewers", json=body).is_success  # the release's route
    return minted["token"], user


def paused_refund(client: TestClient, order: str, key: str) -> dict[str, Any]:
    """A refund turn started with the service account's key: suspended at the refund."""
    body = {"agent": AGENT, "agentVersion": "1.0.0",
            "input": {"userMessage": f"Refund order {order}."}}  # fmt: skip
    answer = client.post("/v1/runs", json=body, headers=bearer(key))
    assert answer.status_code == 201, answer.text
    run: dict[str, Any] = answer.json()
    assert run["status"] == "suspended"
    return run


def waiting_approval(client: TestClient, run_id: str) -> dict[str, Any]:
    run = _models.Run.model_validate(client.get(f"/v1/runs/{run_id}").json())
    assert run.waiting_for is not None and run.waiting_for.other == []
    [waiting] = run.waiting_for.approvals
    assert (waiting.subject_kind, waiting.status, waiting.required_role) == (
        "tool-call:pending",
        "pending",
        "standard",
    )
    assert (waiting.tool.id, waiting.tool.version) == (REFUND, "0.1.0")  # type: ignore[union-attr]
    return {"approvalId": str(waiting.approval_id), "callId": waiting.tool.call_id}  # type: ignore[union-attr]


def test_an_approved_call_runs_and_the_run_completes_with_its_result(desk: Served) -> None:
    client, ctx = desk
    robot = service_key(client)
    token, user = reviewer_key(client)
    run = paused_refund(client, "7", robot)
    assert "response" not in (run.get("output") or {})
    waiting = waiting_approval(client, run["id"])
    listed = client.get("/v1/approvals", params={"runId": run["id"]}, headers=bearer(token))
    [approval] = _models.ApprovalCollectionPage.model_validate(listed.json()).data
    assert str(approval.id) == waiting["approvalId"]
    assert approval.subject_ref["arguments"] == {"orderId": "7"}
    assert str(approval.provenance_ref.run_id) == run["id"]  # type: ignore[union-attr]
    assert approval.wait_token_id is not None and approval.requested_by.startswith(
        "service_account:"
    )  # type: ignore[union-attr]
    before = every_row(ctx.settings.database_path)
    refused = client.post(f"/v1/runs/{run['id']}/resume", json={})
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        422,
        "run-resume-not-supported",
    )
    assert every_row(ctx.settings.database_path) == before
    done = client.post(f"/v1/approvals/{approval.id}/complete", json={"decision": "approve"},
                       headers=bearer(token))  # fmt: skip
    result = _models.CompleteApprovalResult.model_validate(done.json())
    assert (result.kind, result.waitpoint_resolved, result.run_status) == (
        "terminal",
        True,
        "completed",
    )
    assert result.resume is not None and result.resume.kind == "ok"
    assert result.approval.status == "approved"
    finished = client.get(f"/v1/runs/{run['id']}").json()
    assert finished["output"]["response"]["content"] == "Refunded order 7: rf-7."
    assert "waitingFor" not in finished
    journal = client.get(f"/v1/runs/{run['id']}/journal").json()["data"]
    assert [e["kind"] for e in journal] == [
        "run.started", "wait.suspended", "wait.resumed", "step.completed", "run.completed",
    ]  # fmt: skip
    assert journal[2]["payload"]["decidedBy"] == f"user:{user}"
    call = journal[3]["payload"]
    assert (call["source"], call["result"]) == ("live", {"refundId": "rf-7", "orderId": "7"})
    assert call["approval"] == {"approvalId": waiting["approvalId"], "decision": "approve",
                                "decidedBy": f"user:{user}"}  # fmt: skip
    again = client.post(f"/v1/approvals/{approval.id}/complete", json={"decision": "reject"},
                        headers=bearer(token))  # fmt: skip
    assert (again.status_code, again.json()["error"]["code"]) == (409, "approval-already-decided")


def test_a_rejected_call_tells_the_model_and_the_run_goes_on(desk: Served) -> None:
    client, _ = desk
    token, _user = reviewer_key(client)
    run = paused_refund(client, "8", service_key(client))
    waiting = waiting_approval(client, run["id"])
    body = {"decision": "reject", "rationale": "Not eligible"}
    done = client.post(f"/v1/approvals/{waiting['approvalId']}/complete", json=body,
                       headers=bearer(token)).json()  # fmt: skip
    assert (done["runStatus"], done["resume"]) == ("completed", {"kind": "ok"})
    finished = client.get(f"/v1/runs/{run['id']}").json()
    assert finished["output"]["response"]["content"] == (
        "I could not refund order 8: a reviewer said no (Not eligible)."
    )
    call = client.get(f"/v1/runs/{run['id']}/journal").json()["data"][3]["payload"]
    assert (call["source"], call["result"]) == (
        "refused",
        {"status": "rejected", "rationale": "Not eligible"},
    )


def test_a_run_a_person_started_is_attended_and_does_not_wait(desk: Served) -> None:
    client, _ = desk
    run = turn(client, "Refund order 9.", version="1.0.0").json()
    assert (run["status"], run["startedBy"]) == ("completed", "person")
    assert run["output"]["response"]["content"] == "Refunded order 9: rf-9."


def test_cancelling_a_waiting_run_withdraws_its_approval(desk: Served) -> None:
    client, _ = desk
    token, _user = reviewer_key(client)
    run = paused_refund(client, "10", service_key(client))
    waiting = waiting_approval(client, run["id"])
    cancelled = client.post(f"/v1/runs/{run['id']}/cancel")
    assert cancelled.json()["status"] == "cancelled"
    approval = client.get(f"/v1/approvals/{waiting['approvalId']}", headers=bearer(token)).json()
    assert (approval["status"], approval["withdrawnBecause"]) == ("withdrawn", "run-cancelled")
    late = client.post(f"/v1/approvals/{waiting['approvalId']}/complete",
                       json={"decision": "approve"}, headers=bearer(token))  # fmt: skip
    assert (late.status_code, late.json()["error"]["code"]) == (409, "approval-already-decided")


def test_replays_follow_the_recorded_decisions_and_say_which(desk: Served) -> None:
    client, _ = desk
    token, user = reviewer_key(client)
    robot = service_key(client)
    decided = {}
    for order, decision in (("11", "approve"), ("12", "reject")):
        run = paused_refund(client, order, robot)
        waiting = waiting_approval(client, run["id"])
        client.post(f"/v1/approvals/{waiting['approvalId']}/complete",
                    json={"decision": decision}, headers=bearer(token))  # fmt: skip
        decided[run["id"]] = (waiting["approvalId"], decision)
        item = {"key": "answer", "pointer": "/appended/3/content", "verdict": "right"}
        body = {"runId": run["id"], "items": [item]}
        assert client.post("/v1/corrections", json=body).status_code == 201
    project = client.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "1.1.0"}}
    started = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body).json()
    for _ in range(400):
        eval_run = client.get(f"/v1/eval-runs/{started['runId']}").json()
        if eval_run["status"] not in ("pending", "running"):
            break
        time.sleep(0.05)
    replays = client.get("/v1/runs", params={"evalRunId": started["runId"]}).json()["data"]
    followed = {}
    for replay in replays:
        call = client.get(f"/v1/runs/{replay['id']}/journal").json()["data"][1]["payload"]
        assert replay["status"] == "completed" and call["source"] == "recorded"
        followed[replay["replayOf"]] = call["approval"]
    for run_id, (approval_id, decision) in decided.items():
        if run_id in followed:
            assert followed[run_id] == {"approvalId": approval_id, "decision": decision,
                                        "decidedBy": f"user:{user}", "followed": True}  # fmt: skip
    assert set(decided) <= set(followed)


def test_a_restart_keeps_the_run_waiting_and_approving_it_after_completes(
    tmp_path: Path,
) -> None:
    with desk_served(tmp_path / "pack") as (client, _):
        token, _user = reviewer_key(client)
        run = paused_refund(client, "13", service_key(client))
        waiting = waiting_approval(client, run["id"])
    with desk_served(tmp_path / "pack") as (client, _):
        assert client.get(f"/v1/runs/{run['id']}").json()["status"] == "suspended"
        assert waiting_approval(client, run["id"]) == waiting
        done = client.post(f"/v1/approvals/{waiting['approvalId']}/complete",
                           json={"decision": "approve"}, headers=bearer(token)).json()  # fmt: skip
        assert (done["runStatus"], done["resume"]) == ("completed", {"kind": "ok"})
        finished = client.get(f"/v1/runs/{run['id']}").json()
    assert finished["output"]["response"]["content"] == "Refunded order 13: rf-13."
