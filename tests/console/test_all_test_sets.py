"""Test cases, all of them: an agent's own set, a pulled set and an imported one, each with
its versions and how many eval runs tried each; their cases titled by their questions."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flow_pack import QUESTIONS, flow_served
from serving import serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from kindgi_dev.app import console_link

AGENT = "acme-ops.article-picker"
ORIGIN = {"Origin": "http://127.0.0.1"}
PULLED, IMPORTED = "acme.shared-picks", "acme.imported-picks"


@contextmanager
def remote(cases: list[dict[str, Any]]) -> Iterator[str]:
    """Another runtime serving one version's cases, all on one page."""

    async def page(request: Request) -> Response:
        return JSONResponse({"data": cases, "hasMore": False, "nextCursor": None})

    path = "/v1/test-sets/{testSetId}/versions/{version}/cases"
    with serve_app(Starlette(routes=[Route(path, page)])) as url:
        yield url


def corrected_and_frozen(api: TestClient) -> dict[str, Any]:
    """The tutorial's questions run and corrected, the agent's set frozen as 1.0.0; its file."""
    for question in QUESTIONS:
        run = api.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}})
        articles = run.json()["output"]["output"]["articles"]
        items = [{"key": a["id"], "pointer": f"/output/articles/{n}", "rank": n,
                  "verdict": "right" if n == 0 else "wrong"}
                 for n, a in enumerate(articles)]  # fmt: skip
        body = {"runId": run.json()["id"], "items": items}
        assert api.post("/v1/corrections", json=body).status_code == 201
    frozen = api.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
    exported = api.get(f"/v1/test-sets/{frozen['testSetId']}/versions/1.0.0/export")
    assert exported.status_code == 200, exported.text
    file: dict[str, Any] = exported.json()
    return file


def rows_of(page: str, table: str) -> dict[str, str]:
    """A set table's rows: id → the row's text, tags dropped and spaces squeezed."""
    body = re.search(rf'<table class="list stack" id="{table}">(.*?)</table>', page, re.DOTALL)
    assert body is not None, f"no table {table}"
    rows = re.findall(r"<tr><td[^>]*><a [^>]*>([^<]+)</a></td>(.*?)</tr>", body.group(1), re.DOTALL)
    return {ident: " ".join(re.sub(r"<[^>]+>", " ", rest).split()) for ident, rest in rows}


def test_pulled_and_imported_sets_are_listed_with_their_versions_and_runs(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (api, _ctx, _pack):
        file = corrected_and_frozen(api)
        imported = api.post("/v1/test-sets/import?source=picks.json", json={**file, "id": IMPORTED})
        assert imported.status_code == 201, imported.text
        with remote(file["cases"]) as url:
            pulled = api.post(f"/v1/test-sets/{PULLED}/versions/1.0.0/pull", json={"from": url})
        assert pulled.status_code == 201, pulled.text
        api.get(console_link(api.app, "http://127.0.0.1"))
        before = html.unescape(api.get("/console/test-cases").text)
        set_page = html.unescape(api.get(f"/console/test-cases/suites/{PULLED}").text)
        csrf = re.search(r'name="csrf" value="([^"]+)"', set_page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "kind": "agent", "subject": AGENT, "version": "0.1.0",
                "repetitions": "1"}  # fmt: skip
        tried = api.post(f"/console/test-cases/suites/{PULLED}/try", data=form, headers=ORIGIN,
                         follow_redirects=False)  # fmt: skip
        assert tried.status_code == 303, tried.text
        for _ in range(300):
            if 'id="progress"' not in api.get(tried.headers["location"]).text:
                break
            time.sleep(0.05)
        after = html.unescape(api.get("/console/test-cases").text)
        set_after = html.unescape(api.get(f"/console/test-cases/suites/{PULLED}").text)
        agent_page = html.unescape(api.get(f"/console/test-cases/agents/{AGENT}").text)
    assert rows_of(before, "pulled") == {
        IMPORTED: "Imported from picks.json 1.0.0 · 3 cases · 0 eval runs",
        PULLED: f"Pulled from {url} 1.0.0 · 3 cases · 0 eval runs",
    }
    assert rows_of(after, "pulled")[PULLED] == f"Pulled from {url} 1.0.0 · 3 cases · 1 eval run"
    assert rows_of(after, "agent-sets") == {
        AGENT: "3 active cases, 0 retired 1.0.0 · 3 cases · 0 eval runs"
    }
    assert f'<p id="source">Pulled from {url}, ' in set_page
    titles = re.findall(r'<section class="case card">\s*<h3>([^<]+)</h3>', set_page)
    assert sorted(titles) == sorted(QUESTIONS)
    assert re.findall(r'class="tried">([^<]+)</td>\s*<td data-label="On cases">([^<]+)<',
                      set_after) == [(f"{AGENT} 0.1.0", "1.0.0")]  # fmt: skip
    questions = re.findall(r'<td data-label="Question" class="question">([^<]+)</td>', agent_page)
    assert sorted(questions) == sorted(QUESTIONS)
