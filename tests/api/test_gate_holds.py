"""What a gate judged is what goes live: a rescore of an eval run doesn't hide that the
version was saved with other content after its replays; a promotion waiting for a reviewer
doesn't go live once its version is unregistered or changed (`refused`), nor when the
scope's pin moved away and back while it waited (`superseded`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, agent_manifest, served, tool_manifests
from release_steps import corrected_suite, models_file, project_scope, try_version
from starlette.testclient import TestClient
from test_release_approvals import reviewer

from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context

LIVE = f"/v1/agents/{AGENT}"
SPEC = {
    "metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}],
    "replay": {"maxErrors": 0, "maxDiverged": 1},
}


def gated(client: TestClient, project: str, approvals: bool = False) -> dict[str, str]:
    """0.1.0 live for the project, under a policy (with a reviewer's approval if asked)."""
    scope: dict[str, str] = project_scope(project)
    pinned = client.post(LIVE + "/promotions", json={"version": "0.1.0", "scope": scope})
    assert pinned.status_code == 201, pinned.text
    spec = {**SPEC, "approvals": {}} if approvals else SPEC
    body = {"id": "acme.a", "version": "1.0.0", "agentId": AGENT, "scope": scope, "spec": spec}
    assert client.post("/v1/gate-policies", json=body).status_code == 201
    return scope


def saved_again(ctx: Context) -> None:
    """0.2.0 saved with other instructions, as an edit of the agent file would."""
    changed = {**agent_manifest("0.2.0"), "instructions": "Something else entirely."}
    time.sleep(0.01)  # a later millisecond than the eval run's start
    catalog.register(ctx, PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="20260101.2",
        tools=tool_manifests(), agents=[agent_manifest("0.1.0"), changed], flows=[],
        guardrails=[], file_errors=[], path=Path("index.json"), warnings=[],
    ))  # fmt: skip


def finished(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while (run := client.get(f"/v1/eval-runs/{run_id}").json())["status"] in ("pending", "running"):
        assert time.monotonic() < deadline, run
        time.sleep(0.05)
    return dict(run)


def same_contents(client: TestClient, scope: dict[str, str], run_id: str) -> tuple[bool, str]:
    checked = client.post(
        LIVE + "/promotions/check", json={"version": "0.2.0", "scope": scope, "evalRunId": run_id}
    ).json()
    found = next(c for c in checked["checks"] if c["name"] == "sameContents")
    return found["passed"], found["message"]


def test_a_rescore_of_replays_made_before_the_version_changed_fails_same_contents(
    tmp_path: Path,
) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        scope = gated(client, project)
        run = try_version(client, project)
        saved_again(ctx)
        started = client.post(f"/v1/eval-runs/{run['runId']}/rescore", json={})
        assert started.status_code in (200, 201, 202), started.text
        rescored = finished(client, started.json()["runId"])
        original = same_contents(client, scope, run["runId"])
        of_rescore = same_contents(client, scope, rescored["runId"])
        made = client.post(LIVE + "/promotions", json={
            "version": "0.2.0", "scope": scope, "evalRunId": rescored["runId"]})  # fmt: skip
    assert rescored["status"] == "completed"
    assert original[0] is False and "saved with other content" in original[1]
    assert of_rescore == original
    assert made.status_code == 422 and made.json()["error"]["code"] == "gate-failed"


def approve(client: TestClient, approval_id: str) -> None:
    decision = {"decision": "approve", "rationale": "ok"}
    path = f"/v1/approvals/{approval_id}/complete"
    done = client.post(path, json=decision, headers=reviewer(client))
    assert done.status_code == 200, done.text


def waiting(client: TestClient, project: str) -> tuple[dict[str, str], dict[str, Any]]:
    scope = gated(client, project, approvals=True)
    run = try_version(client, project)
    asked = client.post(LIVE + "/promotions", json={
        "version": "0.2.0", "scope": scope, "evalRunId": run["runId"]})  # fmt: skip
    assert asked.status_code == 202, asked.text
    return scope, asked.json()


def unregistered(ctx: Context) -> None:
    catalog.unregister(ctx, "agent", AGENT, "0.2.0")


@pytest.mark.parametrize("change", [unregistered, saved_again], ids=["unregistered", "saved"])
def test_an_approval_of_a_version_changed_while_it_waited_leaves_it_refused(
    tmp_path: Path, change: Callable[[Context], None]
) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        _, asked = waiting(client, project)
        change(ctx)
        approve(client, asked["approvalId"])
        status = client.get(f"{LIVE}/promotions/{asked['id']}").json()["status"]
        live = client.get(LIVE + "/live", params={"projectId": project}).json()["version"]
    assert (status, live) == ("refused", "0.1.0")


def test_a_pin_moved_away_and_back_while_it_waited_leaves_it_superseded(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0", "0.3.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        scope, asked = waiting(client, project)
        for version in ("0.3.0", "0.1.0"):
            back = {"scope": scope, "toVersion": version}
            assert client.post(LIVE + "/live/rollback", json=back).status_code == 200
        approve(client, asked["approvalId"])
        status = client.get(f"{LIVE}/promotions/{asked['id']}").json()["status"]
        live = client.get(LIVE + "/live", params={"projectId": project}).json()["version"]
        newest = client.get(LIVE + "/promotions").json()["data"][0]
    assert (status, live) == ("superseded", "0.1.0")
    assert (newest["action"], newest["toVersion"]) == ("rollback", "0.1.0")


def scope_covered(client: TestClient, scope: dict[str, str], run_id: str) -> bool:
    checked = client.post(
        LIVE + "/promotions/check", json={"version": "0.2.0", "scope": scope, "evalRunId": run_id}
    ).json()
    return bool(next(c for c in checked["checks"] if c["name"] == "scopeCovered")["passed"])


def test_scope_covered_reads_the_project_the_corrections_came_from(tmp_path: Path) -> None:
    """The suite is built from the default project's corrections; its eval run records its
    replays in project B. Promoting in B isn't covered by them; promoting in the default is."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        judged = corrected_suite(client, ctx)
        other = client.post("/v1/projects", json={"name": "B", "slug": "b"}).json()["id"]
        run = try_version(client, other)
        covered = {}
        for project, policy in ((other, "acme.b"), (judged, "acme.a")):
            scope = project_scope(project)
            client.post(LIVE + "/promotions", json={"version": "0.1.0", "scope": scope})
            body = {"id": policy, "version": "1.0.0", "agentId": AGENT, "scope": scope,
                    "spec": SPEC}  # fmt: skip
            assert client.post("/v1/gate-policies", json=body).status_code == 201
            covered[project] = scope_covered(client, scope, run["runId"])
    assert run["result"]["summary"]["scope"] == {"projectId": judged}
    assert covered == {other: False, judged: True}


def test_a_pin_set_and_removed_while_it_waited_leaves_it_superseded(tmp_path: Path) -> None:
    """The tenant is gated; the project had no pin of its own when 0.2.0 was asked for
    there. 0.1.0, which serves it from the tenant's pin, is pinned in place for the project
    and unpinned meanwhile: no pin of its own again, but it moved."""
    versions = ("0.1.0", "0.2.0", "0.3.0")
    with served(tmp_path, versions, models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        tenant = {"kind": "tenant"}
        pinned = client.post(LIVE + "/promotions", json={"version": "0.1.0", "scope": tenant})
        assert pinned.status_code == 201, pinned.text
        spec = {**SPEC, "approvals": {}}
        body = {"id": "acme.t", "version": "1.0.0", "agentId": AGENT, "scope": tenant,
                "spec": spec}  # fmt: skip
        made = client.post("/v1/gate-policies", json=body)
        assert made.status_code == 201, made.text
        scope = project_scope(project)
        run = try_version(client, project)
        asked = client.post(LIVE + "/promotions", json={
            "version": "0.2.0", "scope": scope, "evalRunId": run["runId"]}).json()  # fmt: skip
        assert (asked["status"], asked.get("fromVersion")) == ("pending-approval", None), asked
        in_place = client.post(LIVE + "/promotions", json={"version": "0.1.0", "scope": scope})
        assert in_place.status_code == 201, in_place.text
        unpinned = client.post(LIVE + "/live/unpin", json={"scope": scope})
        assert unpinned.status_code == 200, unpinned.text
        approve(client, asked["approvalId"])
        status = client.get(f"{LIVE}/promotions/{asked['id']}").json()["status"]
        live = client.get(LIVE + "/live", params={"projectId": project}).json()
    assert status == "superseded"
    assert live["version"] == "0.1.0"
