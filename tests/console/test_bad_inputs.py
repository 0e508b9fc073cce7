"""Issue 22, point 5, in the console: what made a 500 is a 400 page, and nothing is written.

`'²'.isdigit()` is true but `int('²')` fails; `int()` refuses 5,000 digits; 2**63 doesn't fit
in SQLite; `%00` can't be in a file's path; a cursor is bound to the list it pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, served, tutorial_runs
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.app import console_link
from kindgi_dev.services.context import Context

BASE = "http://127.0.0.1"
PASSWORD = next(iter(QUESTIONS))
UNREADABLE = ["²", "٣", "9" * 5000, "-1", "1.5"]
"""Texts no whole number is read from: `isdigit()` is true of the first two."""


@pytest.fixture(scope="module")
def console(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[TestClient, TestClient, Context, str]]:
    with served(tmp_path_factory.mktemp("console-inputs")) as (api, ctx):
        for _ in range(17):  # 51 runs: more than the runs page shows at once
            runs = tutorial_runs(ctx)
        item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
        made = api.post("/v1/corrections", json={"runId": runs[PASSWORD], "items": [item]})
        assert made.status_code == 201, made.text
        browser = TestClient(api.app, base_url=BASE)
        assert browser.get(console_link(api.app, BASE), follow_redirects=False).status_code == 303
        yield api, browser, ctx, runs[PASSWORD]


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


def a_400_page(answer: Any, says: str) -> None:
    assert answer.status_code == 400, answer.text[:500]
    assert answer.headers["content-type"].startswith("text/html")
    assert says in answer.text, answer.text[:2000]


def refused_beside(answer: Any, field: str) -> None:
    """A 400 page with the refusal shown beside the form's field."""
    a_400_page(answer, f'data-field="{field}"')


def test_from_that_is_no_case_index_is_a_400_page(console: Any) -> None:
    api, browser, ctx, _ = console
    project = api.get("/v1/projects/default").json()["id"]
    body = {"agentRef": {"agentId": AGENT}, "projectId": project, "dryRun": True}
    started = api.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
    assert started.status_code == 201, started.text
    page = f"/console/eval-runs/{started.json()['runId']}"
    before = every_row(Path(ctx.db.path))
    for text in UNREADABLE:
        a_400_page(browser.get(page, params={"from": text}), "from: must be a case&#39;s index")
    assert browser.get(page, params={"from": "0"}).status_code == 200
    assert every_row(Path(ctx.db.path)) == before


def test_repetitions_that_are_no_whole_number_are_refused_beside_the_field(console: Any) -> None:
    _, browser, ctx, _ = console
    page = f"/console/test-cases/agents/{AGENT}"
    csrf = csrf_of(browser.get(page).text)
    before = every_row(Path(ctx.db.path))
    for text in [*UNREADABLE, "11", "0"]:
        form = {"csrf": csrf, "version": "0.1.0", "repetitions": text}
        tried = browser.post(f"{page}/try", data=form, headers={"Origin": BASE})
        refused_beside(tried, "repetitions")
    assert every_row(Path(ctx.db.path)) == before


def test_min_judgments_that_are_no_whole_number_are_refused_beside_the_field(
    console: Any,
) -> None:
    _, browser, ctx, _ = console
    csrf = csrf_of(browser.get("/console/test-cases").text)
    before = every_row(Path(ctx.db.path))
    for text in [*UNREADABLE, "0"]:
        form = {"csrf": csrf, "id": "acme.picks", "version": "1.0.0", "subject": f"agent:{AGENT}",
                "min-judgments": text}  # fmt: skip
        built = browser.post("/console/test-cases", data=form, headers={"Origin": BASE})
        refused_beside(built, "minJudgments")
    assert every_row(Path(ctx.db.path)) == before


def test_a_rank_beyond_64_bits_or_no_number_is_refused_beside_the_field(console: Any) -> None:
    _, browser, ctx, run_id = console
    page = f"/console/runs/{run_id}/correct"
    csrf = csrf_of(browser.get(page).text)
    before = every_row(Path(ctx.db.path))
    for text in [*UNREADABLE, str(2**63), "9223372036854775808"]:
        form = {"csrf": csrf, "verdict-0": "right", "rank-0": text}
        saved = browser.post(page, data=form, headers={"Origin": BASE})
        refused_beside(saved, "items/0/rank")
    assert every_row(Path(ctx.db.path)) == before


def test_a_nul_byte_or_no_utf8_in_a_static_path_is_a_400_page(console: Any) -> None:
    _, browser, ctx, _ = console
    before = every_row(Path(ctx.db.path))
    for path in ("/console/static/%00", "/console/static/console.css%00.txt"):
        a_400_page(browser.get(path), "NUL byte")
    a_400_page(browser.get("/console/static/%ED%A0%80"), "not UTF-8")
    assert browser.get("/console/static/console.css").status_code == 200
    assert every_row(Path(ctx.db.path)) == before


def test_bytes_that_are_no_utf8_in_a_page_address_are_a_400_page(console: Any) -> None:
    _, browser, ctx, run_id = console
    before = every_row(Path(ctx.db.path))
    for target in ("/console/runs?agent=%ED%A0%80", "/console/runs/%FF%FE"):
        a_400_page(browser.get(target), "not UTF-8")
    assert browser.get(f"/console/runs/{run_id}").status_code == 200
    assert every_row(Path(ctx.db.path)) == before


def next_page_cursor(html: str) -> str:
    found = re.search(r"cursor=([^\"&]+)\"", html)
    assert found, "the page links to the next one"
    return found.group(1)


def test_a_cursor_is_taken_only_by_the_list_that_gave_it_out(console: Any) -> None:
    api, browser, ctx, _ = console
    before = every_row(Path(ctx.db.path))
    runs_cursor = next_page_cursor(browser.get("/console/runs").text)
    assert browser.get("/console/runs", params={"cursor": runs_cursor}).status_code == 200
    agent_set = f"/console/test-cases/agents/{AGENT}"
    a_400_page(browser.get(agent_set, params={"cursor": runs_cursor}), "not a cursor this server")
    refused = api.get("/v1/runs", params={"cursor": runs_cursor})
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"field": "cursor"}
    listed = api.get("/v1/runs", params={"limit": 1}).json()["nextCursor"]
    a_400_page(browser.get("/console/runs", params={"cursor": listed}), "not a cursor this server")
    assert every_row(Path(ctx.db.path)) == before
