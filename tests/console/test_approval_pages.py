"""The console's Approvals page: what waits for a reviewer, each with Approve and Reject; a
decision on a held tool call resumes its run before the page comes back."""

from __future__ import annotations

import html
import re
import uuid
from pathlib import Path

from desk_pack import AGENT, desk_served
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.app import console_link

BASE = "http://127.0.0.1"
ORIGIN = {"Origin": BASE}


def paused(client: TestClient, order: str, key: str) -> str:
    body = {"agent": AGENT, "input": {"userMessage": f"Refund order {order}."}}
    run = client.post("/v1/runs", json=body, headers={"Authorization": f"Bearer {key}"}).json()
    assert run["status"] == "suspended"
    return str(run["id"])


def approval_of(client: TestClient, run_id: str) -> str:
    return str(client.get(f"/v1/runs/{run_id}").json()["waitingFor"]["approvals"][0]["approvalId"])


def text_of(client: TestClient, path: str) -> str:
    return html.unescape(client.get(path).text)


def test_approve_and_reject_from_the_approvals_page(tmp_path: Path) -> None:
    with desk_served(tmp_path / "desk") as (client, ctx):
        owner = {"kind": "service-account", "id": str(uuid.uuid4())}
        key = client.post("/v1/tokens", json={"for": owner}).json()["token"]
        first, second = paused(client, "21", key), paused(client, "22", key)
        client.get(console_link(client.app, BASE))
        page = text_of(client, "/console/approvals")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        assert page.count("HITL review: acme-desk.issue-refund") == 2
        assert '{"orderId":"21"}' in page and '{"orderId":"22"}' in page
        assert "waits for a reviewer" in text_of(client, f"/console/runs/{first}")
        before = every_row(ctx.settings.database_path)
        forged = client.post(f"/console/approvals/{approval_of(client, first)}",
                             data={"decision": "approve"}, headers=ORIGIN)  # fmt: skip
        assert forged.status_code == 403
        assert every_row(ctx.settings.database_path) == before
        approved = client.post(
            f"/console/approvals/{approval_of(client, first)}",
            data={"csrf": csrf.group(1), "decision": "approve"}, headers=ORIGIN,
            follow_redirects=False,
        )  # fmt: skip
        assert approved.status_code == 303
        assert approved.headers["location"] == f"/console/approvals?decided=approved&run={first}"
        after = text_of(client, approved.headers["location"])
        assert "Approved. The run went on" in after
        assert '{"orderId":"21"}' not in after and '{"orderId":"22"}' in after
        rejected = client.post(
            f"/console/approvals/{approval_of(client, second)}",
            data={"csrf": csrf.group(1), "decision": "reject", "rationale": "Too late"},
            headers=ORIGIN,
        )  # fmt: skip
        assert "Rejected." in html.unescape(rejected.text)
        assert "Nothing waits for a reviewer." in html.unescape(rejected.text)
        answers = [client.get(f"/v1/runs/{r}").json()["output"]["response"]["content"]
                   for r in (first, second)]  # fmt: skip
    assert answers == [
        "Refunded order 21: rf-21.",
        "I could not refund order 22: a reviewer said no (Too late).",
    ]


def test_a_rationale_the_api_refuses_is_refused_and_nothing_is_decided(tmp_path: Path) -> None:
    with desk_served(tmp_path / "desk") as (client, ctx):
        owner = {"kind": "service-account", "id": str(uuid.uuid4())}
        key = client.post("/v1/tokens", json={"for": owner}).json()["token"]
        run_id = paused(client, "31", key)
        approval = approval_of(client, run_id)
        client.get(console_link(client.app, BASE))
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/approvals").text)
        assert csrf is not None
        long = "r" * 4001
        before = every_row(ctx.settings.database_path)
        refused = client.post(
            f"/console/approvals/{approval}",
            data={"csrf": csrf.group(1), "decision": "approve", "rationale": long},
            headers=ORIGIN,
            follow_redirects=False,
        )
        after = every_row(ctx.settings.database_path)
        api = client.post(
            f"/v1/approvals/{approval}/complete", json={"decision": "approve", "rationale": long}
        )
        status = client.get(f"/v1/approvals/{approval}").json()["status"]
    assert refused.status_code == 400, refused.text
    assert "at most 4000 characters" in html.unescape(refused.text)
    assert after == before
    assert api.status_code == 400 and "at most 4000 characters" in api.json()["error"]["message"]
    assert status == "pending"
