"""Names for what was tried: a flow eval run tried with a tool at another version says so in
its headline, its page's name and its list row; the Try form picks that tool's version; and
each case is titled by its question."""

from __future__ import annotations

import html
import re
from pathlib import Path

from flow_pack import FIND, PASSWORD, QUESTIONS, SUGGEST, flow_served
from starlette.testclient import TestClient

from kindgi_dev.app import console_link
from kindgi_dev.console import words

SUITE = "acme.flow-picks"
ORIGIN = {"Origin": "http://127.0.0.1"}


def corrected_suite(api: TestClient) -> None:
    """The guide's flow demo: three corrected runs of suggest-articles, built into a suite."""
    for question in QUESTIONS:
        run = api.post("/v1/runs", json={"flow": SUGGEST, "input": {"question": question}}).json()
        articles = run["output"]["output"]["articles"]
        items = [{"key": a["id"], "rank": rank, "pointer": f"/output/articles/{rank}",
                  "verdict": "right" if rank == 0 else "wrong"}
                 for rank, a in enumerate(articles)]  # fmt: skip
        done = api.post("/v1/corrections", json={"runId": run["id"], "items": items})
        assert done.status_code == 201, done.text
    project = api.get("/v1/projects/default").json()["id"]
    body = {"version": "1.0.0", "projectId": project, "flowId": SUGGEST}
    built = api.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text


def finished(browser: TestClient, path: str) -> str:
    for _ in range(300):
        page = browser.get(path)
        assert page.status_code == 200, page.text
        if 'id="progress"' not in page.text:
            return html.unescape(page.text)
    raise AssertionError("the eval run did not finish")


def test_a_flow_tried_with_a_tool_at_another_version_is_named_so(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (api, _ctx, _pack):
        corrected_suite(api)
        browser = api
        browser.get(console_link(api.app, "http://127.0.0.1"))
        form_page = html.unescape(browser.get(f"/console/test-cases/suites/{SUITE}").text)
        picker = re.search(rf'<select name="tool:{FIND}">(.*?)</select>', form_page, re.DOTALL)
        assert picker is not None, "no version picker for the flow's tool"
        assert re.findall(r"<option[^>]*>([^<]+)</option>", picker.group(1)) == [
            "the flow's own", "0.2.0", "0.1.0"]  # fmt: skip
        csrf = re.search(r'name="csrf" value="([^"]+)"', form_page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "kind": "flow", "subject": SUGGEST, "version": "0.1.0",
                "repetitions": "1", "reads": "live"}  # fmt: skip
        as_published = browser.post(f"/console/test-cases/suites/{SUITE}/try", data=form,
                                    headers=ORIGIN, follow_redirects=False)  # fmt: skip
        swapped = browser.post(f"/console/test-cases/suites/{SUITE}/try",
                               data={**form, f"tool:{FIND}": "0.2.0"}, headers=ORIGIN,
                               follow_redirects=False)  # fmt: skip
        assert (as_published.status_code, swapped.status_code) == (303, 303), swapped.text
        plain_page = finished(browser, as_published.headers["location"])
        swapped_page = finished(browser, swapped.headers["location"])
        listed = html.unescape(browser.get(f"/console/test-cases/suites/{SUITE}").text)
        run_id = swapped.headers["location"].rsplit("/", 1)[1]
        summary = api.get(f"/v1/eval-runs/{run_id}").json()["result"]["summary"]
    named = f"{SUGGEST} 0.1.0 with {FIND} 0.2.0"
    assert summary["candidate"]["versions"] == {"tools": {FIND: "0.2.0"}}
    assert f'<h1 id="tried">{named}</h1>' in swapped_page
    assert f"<title>{named} on {SUITE} · kindgi dev console</title>" in swapped_page
    assert f"People's corrections rate {named} better than the recorded runs: 50% marked right" \
        in swapped_page  # fmt: skip
    assert f'<h1 id="tried">{SUGGEST} 0.1.0</h1>' in plain_page
    assert f"People's corrections rate {SUGGEST} 0.1.0 the same as" in plain_page
    rows = re.findall(r'<td data-label="Version tried" class="tried">([^<]+)</td>', listed)
    assert rows == [named, f"{SUGGEST} 0.1.0"]
    titles = re.findall(r'<section class="case card">\s*<h3>([^<]+)</h3>', swapped_page)
    assert sorted(titles) == sorted(QUESTIONS)
    assert PASSWORD in titles


def test_case_titles_and_swapped_parts_in_words() -> None:
    assert words.case_title({"userMessage": "Where is it?"}, 0) == "Where is it?"
    assert words.case_title({"question": "Refund?", "locale": "en"}, 0) == "Refund?"
    assert words.case_title({"orderId": 12, "note": "late\nparcel"}, 3) == "late parcel"
    assert words.case_title({"a": 1, "b": [2]}, 3) == '{"a": 1, "b": [2]}'
    assert words.case_title(None, 3) == "Case 4"
    assert words.case_title("x" * 200, 0) == "x" * 119 + "…"
    assert words.swapped({"tools": {"t.b": "2.0.0", "t.a": "1.0.0"}, "agents": {"g": "0.1.0"}}) \
        == " with t.a 1.0.0 and t.b 2.0.0 and g 0.1.0"  # fmt: skip
    assert words.swapped({"tools": {}, "agents": {}}) == ""
