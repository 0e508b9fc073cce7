"""An eval run's page: the gate's verdict beside the metrics, and Make it live (or why it
can't go live)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from factories import AGENT, served
from release_steps import corrected_suite, models_file, project_scope, try_version
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.app import console_link

ORIGIN = {"Origin": "http://127.0.0.1"}


def page_of(client: TestClient, run_id: str) -> tuple[str, str]:
    """The eval run's page as text, and its CSRF token."""
    shown = html.unescape(client.get(f"/console/eval-runs/{run_id}").text)
    csrf = re.search(r'name="csrf" value="([^"]+)"', shown)
    assert csrf is not None
    return shown, csrf.group(1)


def test_make_it_live_from_an_eval_run_page(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        scope = project_scope(project)
        client.post(f"/v1/agents/{AGENT}/promotions", json={"version": "0.1.0", "scope": scope})
        spec = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}]}
        policy = {"id": "acme.prod", "version": "1.0.0", "agentId": AGENT, "scope": scope,
                  "spec": spec}  # fmt: skip
        assert client.post("/v1/gate-policies", json=policy).status_code == 201
        run = try_version(client, project)
        client.get(console_link(client.app, "http://127.0.0.1"))
        shown, csrf = page_of(client, run["runId"])
        assert "The gate would let this version go live." in shown
        assert f"Gate policy acme.prod 1.0.0; {AGENT} 0.1.0 is live for this project now." in shown
        assert "✓ The weighted yes share is 1; the policy needs at least 0.9." in shown
        assert 'id="cannot"' not in shown
        made = client.post(f"/console/eval-runs/{run['runId']}/make-live",
                           data={"csrf": csrf, "reason": "from the page"}, headers=ORIGIN,
                           follow_redirects=False)  # fmt: skip
        assert made.status_code == 303
        after = html.unescape(client.get(made.headers["location"]).text)
        live = client.get(f"/v1/agents/{AGENT}/live", params={"projectId": project}).json()
        history = client.get(f"/v1/agents/{AGENT}/promotions").json()["data"]
    assert "Made live: runs in this project that name no version now get it." in after
    assert f"{AGENT} 0.2.0 is live for this project now." in after
    assert live["version"] == "0.2.0"
    assert (history[0]["reason"], history[0]["evalRunId"]) == ("from the page", run["runId"])


def test_a_version_the_gate_refuses_shows_why_and_cannot_go_live(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path)) as (client, ctx):
        project = corrected_suite(client, ctx)
        scope = project_scope(project)
        client.post(f"/v1/agents/{AGENT}/promotions", json={"version": "0.1.0", "scope": scope})
        spec = {"metrics": [{"name": "judgedCoverage", "minCandidate": 0.9}]}
        policy = {"id": "acme.prod", "version": "1.0.0", "agentId": AGENT, "scope": scope,
                  "spec": spec}  # fmt: skip
        assert client.post("/v1/gate-policies", json=policy).status_code == 201
        run = try_version(client, project)
        client.get(console_link(client.app, "http://127.0.0.1"))
        shown, csrf = page_of(client, run["runId"])
        assert "The gate would refuse this version:" in shown
        assert "✗ Judged coverage is 0.167; the policy needs at least 0.9." in shown
        assert "It can't go live: Judged coverage is 0.167; the policy needs at least 0.9." in shown
        assert re.search(r"<button type=\"submit\" disabled>Make 0.2.0 live</button>", shown)
        before = every_row(ctx.settings.database_path)
        forced = client.post(f"/console/eval-runs/{run['runId']}/make-live",
                             data={"csrf": csrf}, headers=ORIGIN)  # fmt: skip
        after = every_row(ctx.settings.database_path)
    assert forced.status_code == 422
    assert "The gate refused acme-ops.article-picker 0.2.0: Judged coverage is 0.167" in (
        html.unescape(forced.text))  # fmt: skip
    assert {t for t in after if after[t] != before[t]} == {"promotions"}
