"""The console's flow pages: a flow's test cases offer Try a flow version, and a flow's run
on them shows the recorded output beside the version's and a stopped case in words."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

from flow_pack import REFUND, SUGGEST_AND_LOG, flow_served
from starlette.testclient import TestClient

from kindgi_dev.app import console_link

FIND = "acme-ops.find-articles"
SUITE = "acme.flow-log-picks"


def test_a_flow_version_tried_from_the_console_and_its_stopped_case(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (api, _ctx, _pack):
        for question in ("I forgot my password and can't sign in.", REFUND):
            run = api.post("/v1/runs", json={"flow": SUGGEST_AND_LOG,
                                             "input": {"question": question}}).json()  # fmt: skip
            first = run["output"]["output"]["articles"][0]
            body = {"runId": run["id"], "items": [{"key": first["id"], "rank": 0,
                    "pointer": "/output/articles/0", "verdict": "right"}]}  # fmt: skip
            assert api.post("/v1/corrections", json=body).status_code == 201
        project = api.get("/v1/projects/default").json()["id"]
        built = api.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments",
                         json={"version": "1.0.0", "projectId": project,
                               "flowId": SUGGEST_AND_LOG})  # fmt: skip
        assert built.status_code == 201, built.text

        browser = api  # the console's pages, with its cookie, in the same app's event loop
        browser.get(console_link(api.app, "http://127.0.0.1"))
        page = browser.get(f"/console/test-cases/suites/{SUITE}").text
        assert "Try a flow version on the test cases" in page
        assert f'name="subject" value="{SUGGEST_AND_LOG}"' in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "kind": "flow", "subject": SUGGEST_AND_LOG,
                "version": "0.1.0", "repetitions": "1"}  # fmt: skip
        origin = {"Origin": "http://127.0.0.1"}
        tried = browser.post(f"/console/test-cases/suites/{SUITE}/try", data=form,
                             headers=origin, follow_redirects=False)  # fmt: skip
        assert tried.status_code == 303, tried.text
        tried_page = wait_until_done(browser, tried.headers["location"])
        assert "People's corrections rate acme-ops.suggest-and-log 0.1.0 the same as" in tried_page

        swapped = {"projectId": project, "flowRef": {"flowId": SUGGEST_AND_LOG,
                   "version": "0.1.0"}, "versions": {"tools": {FIND: "0.2.0"}},
                   "reads": "live"}  # fmt: skip
        started = api.post(f"/v1/eval-suites/{SUITE}/runs", json=swapped).json()
        stopped_page = wait_until_done(browser, f"/console/eval-runs/{started['runId']}")
        events = browser.get(f"/console/eval-runs/{started['runId']}/events").text
        replay = api.get("/v1/runs", params={"evalRunId": started["runId"]}).json()["data"][0]
        replay_page = html.unescape(browser.get(f"/console/runs/{replay['id']}").text)
        experts = browser.post(f"/console/test-cases/suites/{SUITE}/try",
                               data={**form, "experts": "1"}, headers=origin)  # fmt: skip
        experts_page = wait_until_done(browser, str(experts.url.path))
        suite_page = html.unescape(browser.get(f"/console/test-cases/suites/{SUITE}").text)
    assert "Only experts' corrections counted; the others weighed 0." in experts_page
    assert f'<dt>Ran with</dt><dd><span class="tag">{FIND} 0.2.0</span>' in replay_page
    assert suite_page.count("restricted classes only") == 1
    assert events == (
        'event: progress\ndata: {"casesDone": 2, "cases": 2}\n\n'
        'event: end\ndata: {"status": "completed"}\n\n'
    )
    assert (
        "It stopped at a tool call the replay refused: it would have called "
        'acme-ops.log-suggestion with `{"articles":[{"id":"kb-201","title":"Request a refund"}],'
        f'"question":"{REFUND}"}}`. That call wasn\'t carried out, and there\'s no output to rate.'
    ) in stopped_page


def wait_until_done(browser: TestClient, path: str) -> str:
    """The eval run's page once it no longer shows progress."""
    for _ in range(200):
        page = browser.get(path)
        assert page.status_code == 200, page.text
        if 'id="progress"' not in page.text:
            return html.unescape(page.text)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")
