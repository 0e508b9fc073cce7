"""Releasing through the API: gate policies, the check, promotions, live versions, rollback,
unpin and approvals, every answer read with the official client's models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, served
from kindgi.client import _models as official
from release_steps import (
    corrected_suite,
    models_file,
    project_scope,
    try_version,
)
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

POLICY = "acme.picker-prod"
SPEC = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}], "replay": {"maxErrors": 0}}
CHECKS = [
    "comparison.required", "comparison.status", "sameContents", "baselineIsLive", "scopeCovered",
    "replay.maxDiverged", "replay.maxErrors", "replay.maxRefusedWrites", "replay.maxStopped",
    "metric.weightedYesShare.minCandidate",
]  # fmt: skip
LIVE = f"/v1/agents/{AGENT}"


class Release:
    """A served instance with the tutorial's suite, 0.1.0 pinned for the default project."""

    def __init__(self, client: TestClient, ctx: Context, project: str) -> None:
        self.client, self.ctx, self.project = client, ctx, project
        self.scope = project_scope(project)

    def rows(self) -> dict[str, list[tuple[Any, ...]]]:
        return every_row(self.ctx.settings.database_path)

    def publish(self, spec: dict[str, Any] = SPEC, **extra: Any) -> Any:
        body = {"id": POLICY, "version": "1.0.0", "agentId": AGENT, "scope": self.scope,
                "spec": spec, **extra}  # fmt: skip
        return self.client.post("/v1/gate-policies", json=body)

    def promote(self, version: str, path: str = "/promotions", **extra: Any) -> Any:
        return self.client.post(
            LIVE + path, json={"version": version, "scope": self.scope, **extra}
        )


@pytest.fixture
def release(tmp_path: Path) -> Iterator[Release]:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        first = Release(client, ctx, project)
        pinned = first.promote("0.1.0", reason="what the tutorial's runs ran")
        assert pinned.status_code == 201, pinned.text
        yield first


def test_evaluate_check_promote_run_and_roll_back(release: Release) -> None:
    client = release.client
    published = release.publish()
    assert published.status_code == 201, published.text
    official.GatePolicy.model_validate(published.json())
    assert published.json()["spec"] == SPEC
    before_run = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "hi"}})
    assert before_run.json()["agent"]["version"] == "0.1.0"
    assert before_run.json()["agent"]["via"] == "live"
    conversation = before_run.json()["agent"]["conversationId"]
    run = try_version(client, release.project)
    assert run["status"] == "completed"

    before = release.rows()
    checked = release.promote("0.2.0", "/promotions/check", evalRunId=run["runId"])
    assert checked.status_code == 200
    check = official.PromotionCheck.model_validate(checked.json())
    assert release.rows() == before
    assert check.outcome == "would-promote" and check.approval is None
    assert check.policy is not None and (check.policy.id, check.policy.version) == (POLICY, "1.0.0")
    assert [c.name for c in check.checks] == CHECKS
    assert all(c.passed for c in check.checks)

    made = release.promote("0.2.0", evalRunId=run["runId"], reason="0.2.0 picks better")
    assert made.status_code == 201, made.text
    promotion = official.Promotion.model_validate(made.json())
    assert (promotion.action, promotion.status) == ("promote", "promoted")
    assert (promotion.from_version, promotion.to_version) == ("0.1.0", "0.2.0")
    assert promotion.eval_run_id == run["runId"] and promotion.reason == "0.2.0 picks better"
    assert [c.name for c in promotion.checks or []] == CHECKS

    live = official.LiveVersionResolution.model_validate(
        client.get(LIVE + "/live", params={"projectId": release.project}).json()
    )
    assert (live.version, live.via) == ("0.2.0", "live")
    assert live.live_scope is not None and live.live_scope.kind == "project"
    started = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "hi"}})
    assert (started.json()["agent"]["version"], started.json()["agent"]["via"]) == ("0.2.0", "live")
    named = client.post("/v1/runs", json={"agent": AGENT, "agentVersion": "0.1.0",
                                          "input": {"userMessage": "hi"}})  # fmt: skip
    assert (named.json()["agent"]["version"], named.json()["agent"]["via"]) == ("0.1.0", "explicit")
    follow_up = client.post("/v1/runs", json={"agent": AGENT, "input": {
        "userMessage": "and then?", "conversationId": conversation}})  # fmt: skip
    assert follow_up.json()["agent"]["version"] == "0.1.0"
    assert follow_up.json()["agent"]["via"] == "conversation"

    rolled = client.post(LIVE + "/live/rollback", json={"scope": release.scope, "reason": "oops"})
    assert rolled.status_code == 200, rolled.text
    back = official.Promotion.model_validate(rolled.json())
    assert (back.action, back.from_version, back.to_version) == ("rollback", "0.2.0", "0.1.0")
    assert back.status is None and back.reason == "oops"
    pins = official.LivePinList.model_validate(client.get(LIVE + "/live-versions").json())
    assert [(p.version, str(p.promotion_id)) for p in pins.data] == [("0.1.0", str(back.id))]
    history = official.PromotionPage.model_validate(client.get(LIVE + "/promotions").json())
    assert [(p.action, p.to_version) for p in history.data] == [
        ("rollback", "0.1.0"), ("promote", "0.2.0"), ("promote", "0.1.0")]  # fmt: skip
    one = client.get(f"{LIVE}/promotions/{promotion.id}")
    assert official.Promotion.model_validate(one.json()).id == promotion.id
    paged = client.get(LIVE + "/promotions", params={"limit": 2}).json()
    rest = client.get(LIVE + "/promotions", params={"cursor": paged["nextCursor"]}).json()
    assert [p["toVersion"] for p in paged["data"] + rest["data"]] == ["0.1.0", "0.2.0", "0.1.0"]


def test_a_failing_gate_lists_every_check_records_the_refusal_and_pins_nothing(
    release: Release,
) -> None:
    spec = {"metrics": [{"name": "judgedCoverage", "minCandidate": 0.9}]}
    assert release.publish(spec).status_code == 201
    run = try_version(release.client, release.project)
    checked = official.PromotionCheck.model_validate(
        release.promote("0.2.0", "/promotions/check", evalRunId=run["runId"]).json()
    )
    assert checked.outcome == "gate-failed"
    failed = [c for c in checked.checks if not c.passed]
    assert [(c.name, c.value, c.threshold) for c in failed] == [
        ("metric.judgedCoverage.minCandidate", 0.167, 0.9)]  # fmt: skip
    assert failed[0].message == "Judged coverage is 0.167; the policy needs at least 0.9."

    before = release.rows()
    refused = release.promote("0.2.0", evalRunId=run["runId"])
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "gate-failed"
    assert error["message"].endswith("Judged coverage is 0.167; the policy needs at least 0.9.")
    assert error["details"]["policy"] == {"id": POLICY, "version": "1.0.0"}
    assert [c["name"] for c in error["details"]["checks"] if not c["passed"]] == [
        "metric.judgedCoverage.minCandidate"]  # fmt: skip
    after = release.rows()
    assert {t for t in after if after[t] != before[t]} == {"promotions"}
    assert len(after["promotions"]) == len(before["promotions"]) + 1
    row = official.Promotion.model_validate(
        release.client.get(f"{LIVE}/promotions/{error['details']['promotionId']}").json()
    )
    assert (row.status, row.from_version, row.to_version) == ("refused", "0.1.0", "0.2.0")
    live = release.client.get(LIVE + "/live", params={"projectId": release.project}).json()
    assert live["version"] == "0.1.0"


UNKNOWN = "00000000-0000-4000-8000-000000000000"


@pytest.mark.parametrize(
    ("what", "status", "code"),
    [
        ("spec-unknown-key", 400, "validation-failed"),
        ("spec-metric-twice", 400, "validation-failed"),
        ("scope-kind", 400, "validation-failed"),
        ("policy-scope-taken", 409, "gate-policy-scope-taken"),
        ("policy-other-content", 409, "gate-policy-already-registered"),
        ("policy-unpinned-scope", 409, "gate-policy-scope-unpinned"),
        ("policy-as-member", 403, "permission-denied"),
        ("promote-unknown-version", 404, "agent-version-not-found"),
        ("promote-unknown-agent", 404, "agent-not-found"),
        ("promote-unknown-eval-run", 404, "eval-run-not-found"),
        ("promote-unknown-project", 404, "project-not-found"),
        ("promote-org", 404, "org-not-found"),
        ("rollback-first-pin", 409, "nothing-to-roll-back"),
        ("rollback-unpinned", 409, "not-pinned"),
        ("unpin-gated", 409, "gate-policy-needs-pin"),
        ("resolve-without-scope", 400, "bad-input"),
    ],
)
def test_refusals_write_nothing(release: Release, what: str, status: int, code: str) -> None:
    client = release.client
    assert release.publish().status_code == 201
    other = project_scope(client.post("/v1/projects", json={"name": "B", "slug": "b"}).json()["id"])
    key = member_key(client)
    before = release.rows()
    answer = refuse(release, what, other, key)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), answer.text
    assert release.rows() == before


def refuse(release: Release, what: str, other: dict[str, str], key: str) -> Any:
    """Send the request `what` names (`other`: an unpinned project's scope, `key`: a member's
    key); its answer."""
    client, scope = release.client, release.scope
    policy = {"id": POLICY, "version": "1.0.0", "agentId": AGENT, "scope": scope, "spec": SPEC}
    sends = {
        "spec-unknown-key": lambda: client.post(
            "/v1/gate-policies", json={**policy, "version": "1.1.0", "spec": {"metric": []}}),
        "spec-metric-twice": lambda: client.post("/v1/gate-policies", json={
            **policy, "version": "1.1.0", "spec": {"metrics": [SPEC["metrics"][0]] * 2}}),
        "scope-kind": lambda: release.promote("0.2.0", scope={"kind": "galaxy"}),
        "policy-scope-taken": lambda: client.post(
            "/v1/gate-policies", json={**policy, "id": "acme.other"}),
        "policy-other-content": lambda: client.post(
            "/v1/gate-policies", json={**policy, "spec": {}}),
        "policy-unpinned-scope": lambda: client.post(
            "/v1/gate-policies", json={**policy, "id": "acme.b", "scope": other}),
        "policy-as-member": lambda: client.post(
            "/v1/gate-policies", json={**policy, "version": "2.0.0"},
            headers={"Authorization": f"Bearer {key}"}),
        "promote-unknown-version": lambda: release.promote("0.9.0"),
        "promote-unknown-agent": lambda: client.post(
            "/v1/agents/acme-ops.nobody/promotions", json={"version": "0.1.0", "scope": scope}),
        "promote-unknown-eval-run": lambda: release.promote("0.2.0", evalRunId=UNKNOWN),
        "promote-unknown-project": lambda: release.promote("0.2.0", scope=project_scope(UNKNOWN)),
        "promote-org": lambda: release.promote("0.2.0", scope={"kind": "org", "orgId": UNKNOWN}),
        "rollback-first-pin": lambda: client.post(LIVE + "/live/rollback", json={"scope": scope}),
        "rollback-unpinned": lambda: client.post(LIVE + "/live/rollback", json={"scope": other}),
        "unpin-gated": lambda: client.post(LIVE + "/live/unpin", json={"scope": scope}),
        "resolve-without-scope": lambda: client.get(LIVE + "/gate-policy"),
    }  # fmt: skip
    return sends[what]()


def member_key(client: TestClient) -> str:
    """A key for another user, a member."""
    return str(client.post("/v1/tokens", json={"label": "someone"}).json()["token"])
