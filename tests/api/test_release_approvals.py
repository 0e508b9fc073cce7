"""A promotion that needs a reviewer: the approval it opens, four eyes, a second reviewer's
key, approve and reject; and a gate policy's versions, resolution and unregistering."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import AGENT, served
from kindgi.client import _models as official
from release_steps import corrected_suite, models_file, project_scope, try_version
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

LIVE = f"/v1/agents/{AGENT}"
Setup = tuple[TestClient, Context, dict[str, str], str]
SPEC = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}], "approvals": {}}


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    """0.1.0 pinned for the default project, a policy that wants a senior reviewer, and 0.2.0
    tried; the client, context, scope and the eval run's id."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        scope = project_scope(corrected_suite(client, ctx))
        pinned = client.post(LIVE + "/promotions", json={"version": "0.1.0", "scope": scope})
        assert pinned.status_code == 201
        body = {"id": "acme.reviewed", "version": "1.0.0", "agentId": AGENT, "scope": scope,
                "spec": SPEC}  # fmt: skip
        assert client.post("/v1/gate-policies", json=body).status_code == 201
        run = try_version(client, scope["projectId"])
        yield client, ctx, scope, run["runId"]


def reviewer(client: TestClient, role: str = "senior") -> dict[str, str]:
    """A second person: a key for a new user, put on the roster; its auth header."""
    minted = client.post("/v1/tokens", json={"label": "reviewer"})
    assert minted.status_code == 201, minted.text
    key = official.MintTokenResult.model_validate(minted.json())
    assert key.principal is not None
    registered = client.post(
        "/v1/approvals/reviewers", json={"userId": key.principal.id, "role": role}
    )
    assert registered.status_code == 200, registered.text
    official.Reviewer.model_validate(registered.json())
    header = {"Authorization": f"Bearer {key.token}"}
    who = client.get("/v1/identity/whoami", headers=header).json()
    assert (who["userId"], who["role"], who["tenantAdmin"]) == (key.principal.id, "member", False)
    assert who["reviewerRole"] == role
    return header


def test_a_second_reviewer_approves_and_the_version_goes_live(setup: Setup) -> None:
    client, ctx, scope, run_id = setup
    asking = {"version": "0.2.0", "scope": scope, "evalRunId": run_id}
    checked = official.PromotionCheck.model_validate(
        client.post(LIVE + "/promotions/check", json=asking).json()
    )
    assert checked.outcome == "needs-approval"
    assert checked.approval is not None
    assert (checked.approval.role, checked.approval.count) == ("senior", 1)
    assert checked.approval.separate_approver is True

    asked = client.post(LIVE + "/promotions", json={"version": "0.2.0", "scope": scope,
                                                    "evalRunId": run_id})  # fmt: skip
    assert asked.status_code == 202, asked.text
    waiting = official.Promotion.model_validate(asked.json())
    assert waiting.status == "pending-approval" and waiting.approval_id is not None
    live = client.get(LIVE + "/live", params={"projectId": scope["projectId"]}).json()
    assert live["version"] == "0.1.0"
    approval = official.Approval.model_validate(
        client.get(f"/v1/approvals/{waiting.approval_id}").json()
    )
    assert (approval.subject_kind, approval.status, approval.required_role) == (
        "agent-promotion", "pending", "senior")  # fmt: skip
    assert approval.subject_ref["promotionId"] == str(waiting.id)
    listed = official.ApprovalCollectionPage.model_validate(
        client.get("/v1/approvals", params={"status": "pending"}).json()
    )
    assert [str(a.id) for a in listed.data] == [waiting.approval_id]

    before = every_row(ctx.settings.database_path)
    own = client.post(f"/v1/approvals/{waiting.approval_id}/complete", json={"decision": "approve"})
    assert (own.status_code, own.json()["error"]["code"]) == (403, "separate-approver-required")
    assert every_row(ctx.settings.database_path) == before

    second = reviewer(client)
    decided = {"decision": "approve", "rationale": "numbers hold"}
    done = client.post(
        f"/v1/approvals/{waiting.approval_id}/complete", json=decided, headers=second
    )
    assert done.status_code == 200, done.text
    result = official.CompleteApprovalResult.model_validate(done.json())
    assert (result.kind, result.approval.status, result.decision.decision) == (
        "terminal", "approved", "approve")  # fmt: skip
    assert result.approval.decision is not None
    assert result.approval.decision.rationale == "numbers hold"
    again = client.post(f"/v1/approvals/{waiting.approval_id}/complete",
                        json={"decision": "reject"}, headers=second)  # fmt: skip
    assert again.json()["error"]["code"] == "approval-already-decided"
    final = official.Promotion.model_validate(client.get(f"{LIVE}/promotions/{waiting.id}").json())
    assert final.status == "promoted" and final.resolved_at is not None
    live = client.get(LIVE + "/live", params={"projectId": scope["projectId"]}).json()
    assert live["version"] == "0.2.0"


def test_a_rejected_promotion_pins_nothing_and_a_standard_reviewer_cannot_see_it(
    setup: Setup,
) -> None:
    client, _, scope, run_id = setup
    asked = client.post(LIVE + "/promotions", json={"version": "0.2.0", "scope": scope,
                                                    "evalRunId": run_id}).json()  # fmt: skip
    junior = reviewer(client, "standard")
    hidden = client.get(f"/v1/approvals/{asked['approvalId']}", headers=junior)
    assert hidden.json()["error"]["code"] == "approval-not-found"
    assert client.get("/v1/approvals", headers=junior).json()["data"] == []
    stranger = client.post("/v1/tokens", json={}).json()["token"]
    refused = client.get("/v1/approvals", headers={"Authorization": f"Bearer {stranger}"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "permission-denied")
    rejected = client.post(f"/v1/approvals/{asked['approvalId']}/complete",
                           json={"decision": "reject"}, headers=reviewer(client))  # fmt: skip
    assert rejected.json()["approval"]["status"] == "rejected"
    final = client.get(f"{LIVE}/promotions/{asked['id']}").json()
    assert final["status"] == "rejected"
    live = client.get(LIVE + "/live", params={"projectId": scope["projectId"]}).json()
    assert live["version"] == "0.1.0"


def test_a_policys_versions_resolution_and_unregistering(setup: Setup) -> None:
    client, _, scope, _ = setup
    query = {"scopeKind": "project", "scopeId": scope["projectId"]}
    resolved = official.GatePolicyResolution.model_validate(
        client.get(LIVE + "/gate-policy", params=query).json()
    )
    assert resolved.policy is not None and resolved.policy.version == "1.0.0"
    segment = {**query, "scopeKind": "segment", "segment": ["company:acme"]}
    assert (
        client.get(LIVE + "/gate-policy", params=segment).json()["policy"]["id"] == "acme.reviewed"
    )
    tenant = client.get(LIVE + "/gate-policy", params={"scopeKind": "tenant"}).json()
    assert tenant == {"policy": None}
    body = {"id": "acme.reviewed", "version": "1.1.0", "agentId": AGENT, "scope": scope,
            "spec": {"replay": {}}}  # fmt: skip
    assert client.post("/v1/gate-policies", json=body).status_code == 201
    assert client.post("/v1/gate-policies", json=body).status_code == 200
    assert client.get("/v1/gate-policies/acme.reviewed").json()["version"] == "1.1.0"
    gone = client.post("/v1/gate-policies/acme.reviewed/versions/1.1.0/unregister")
    assert official.GatePolicy.model_validate(gone.json()).unregistered_at is not None
    assert client.get("/v1/gate-policies/acme.reviewed").json()["version"] == "1.0.0"
    versions = official.GatePolicyPage.model_validate(
        client.get("/v1/gate-policies/acme.reviewed/versions").json()
    )
    assert [(p.version, p.unregistered_at is None) for p in versions.data] == [
        ("1.0.0", True), ("1.1.0", False)]  # fmt: skip
    back = client.post("/v1/gate-policies/acme.reviewed/versions/1.1.0/reinstate")
    assert back.json().get("unregisteredAt") is None
    listed = official.GatePolicyPage.model_validate(
        client.get("/v1/gate-policies", params={"agentId": AGENT}).json()
    )
    assert [(p.id, p.version) for p in listed.data] == [("acme.reviewed", "1.1.0")]
    missing = client.get("/v1/gate-policies/acme.nothing")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "gate-policy-not-found")
