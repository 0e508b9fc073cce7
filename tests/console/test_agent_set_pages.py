"""An agent's test set in the console: its cases, and Try an agent version on them."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

from factories import QUESTIONS, recorded_run, served
from flow_pack import PASSWORD, flow_served

from kindgi_dev.app import console_link

AGENT = "acme-ops.article-picker"
ORIGIN = {"Origin": "http://127.0.0.1"}


def test_try_an_agent_version_on_its_test_set(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _ctx, _pack):
        run = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": PASSWORD}})
        assert run.status_code == 201, run.text
        items = [{"key": a["id"], "pointer": f"/output/articles/{n}", "rank": n,
                  "verdict": "right" if n == 0 else "wrong"}
                 for n, a in enumerate(run.json()["output"]["output"]["articles"])]  # fmt: skip
        body = {"runId": run.json()["id"], "items": items}
        assert client.post("/v1/corrections", json=body).status_code == 201
        client.get(console_link(client.app, "http://127.0.0.1"))
        form_page = client.get(f"/console/runs/{body['runId']}/correct").text
        checked = re.findall(r'name="verdict-(\d)" value="(right|wrong)" checked', form_page)
        assert checked == [("0", "right"), ("1", "wrong"), ("2", "wrong")]
        page = html.unescape(client.get(f"/console/test-cases/agents/{AGENT}").text)
        assert "Try an agent version on the test cases" in page
        assert "kb-101 right" in page and "kb-102 wrong" in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "version": "0.1.0", "repetitions": "11"}
        refused = client.post(f"/console/test-cases/agents/{AGENT}/try", data=form,
                              headers=ORIGIN)  # fmt: skip
        assert refused.status_code == 400
        assert ('data-field="repetitions">Input should be less than or equal to 10</span>'
                in refused.text)  # fmt: skip
        form["repetitions"] = "1"
        tried = client.post(f"/console/test-cases/agents/{AGENT}/try", data=form,
                            headers=ORIGIN, follow_redirects=False)  # fmt: skip
        assert tried.status_code == 303, tried.text
        for _ in range(200):
            shown = html.unescape(client.get(tried.headers["location"]).text)
            if 'id="progress"' not in shown:
                break
            time.sleep(0.05)
        listed = html.unescape(client.get(f"/console/test-cases/agents/{AGENT}").text)
        runs = {query: client.get(f"/console/runs?{query}").text.count('href="/console/runs/')
                for query in ("", "replays=include", f"agent={AGENT}&version=0.1.0",
                              f"agent={AGENT}&version=0.2.0")}  # fmt: skip
    assert runs == {"": 1, "replays=include": 2, f"agent={AGENT}&version=0.1.0": 1,
                    f"agent={AGENT}&version=0.2.0": 0}  # fmt: skip
    assert (
        "People's corrections rate acme-ops.article-picker 0.1.0 the same as the recorded runs: "
        "33% marked right before, 33% now, on the 1 of 1 cases with answers people corrected."
    ) in shown
    assert "newest frozen version 1.0.0" in listed
    assert listed.count("/console/eval-runs/") == 1


def test_a_case_expecting_only_an_answer_shows_on_the_set_page(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        run = recorded_run(ctx, next(iter(QUESTIONS)))
        body = {"runId": run, "answer": {"verdict": "wrong", "shouldSay": "Link kb-101."}}
        assert client.post(f"/v1/agents/{AGENT}/test-set/cases", json=body).status_code == 201
        client.get(console_link(client.app, "http://127.0.0.1"))
        answer = client.get(f"/console/test-cases/agents/{AGENT}")
        assert answer.status_code == 200
        assert "answer wrong" in html.unescape(answer.text)
