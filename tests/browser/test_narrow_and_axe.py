"""The console's pages in headless Chromium against the real `kindgi dev`, with the guide's
flow demo in it: a flow tried with acme-ops.find-articles 0.2.0 from the Try form, named so;
the metrics chart with its two runs; a pulled set on Test cases; then every page at 390 px
without sideways scrolling, and axe-core finding nothing serious or critical on any.

Set KINDGI_SCREENSHOTS=1 to refresh the screenshots in docs/images/ that docs/console.md
shows (CI leaves tracked files alone).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from axe import axe_script, severe_violations
from e2e.devserver import DevServer, copy_example, start
from playwright.sync_api import Browser, BrowserContext, Page, expect
from serving import serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

pytestmark = [pytest.mark.slow]

AGENT = "acme-ops.article-picker"
SUGGEST, FIND = "acme-ops.suggest-articles", "acme-ops.find-articles"
SUITE, PULLED = "acme.flow-picks", "acme.shared-picks"
QUESTIONS = (
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
)
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    running = start(copy_example(tmp_path_factory.mktemp("narrow") / "article-picker"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: docs/images/ when refreshing them, else a temporary folder."""
    if os.environ.get("KINDGI_SCREENSHOTS") == "1":
        IMAGES.mkdir(exist_ok=True)
        return IMAGES
    return tmp_path_factory.mktemp("screenshots")


def corrected(api: httpx.Client, start: dict[str, Any]) -> None:
    """A run started and corrected as the guide does: its first article right, the rest wrong."""
    run = api.post("/v1/runs", json=start, timeout=60).json()
    assert run["status"] == "completed", run
    articles = run["output"]["output"]["articles"]
    items = [{"key": a["id"], "rank": n, "pointer": f"/output/articles/{n}",
              "verdict": "right" if n == 0 else "wrong"}
             for n, a in enumerate(articles)]  # fmt: skip
    done = api.post("/v1/corrections", json={"runId": run["id"], "items": items})
    assert done.status_code == 201, done.text


def seeded(server: DevServer) -> None:
    """The guide's flow runs corrected and built into a suite, the agent's runs corrected and
    frozen, and that frozen version pulled back as another runtime's set."""
    with server.client() as api:
        for question in QUESTIONS:
            corrected(api, {"flow": SUGGEST, "input": {"question": question}})
            corrected(api, {"agent": AGENT, "input": {"userMessage": question}})
        project = api.get("/v1/projects/default").json()["id"]
        body = {"version": "1.0.0", "projectId": project, "flowId": SUGGEST}
        built = api.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
        assert built.status_code == 201, built.text
        frozen = api.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
        cases = api.get(f"/v1/test-sets/{frozen['testSetId']}/versions/1.0.0/export").json()
        with remote(cases["cases"]) as url:
            pulled = api.post(f"/v1/test-sets/{PULLED}/versions/1.0.0/pull", json={"from": url})
        assert pulled.status_code == 201, pulled.text
        scope = {"kind": "project", "projectId": project}
        promoted = api.post(f"/v1/agents/{AGENT}/promotions", json={"version": "0.1.0",
                            "scope": scope})  # fmt: skip
        assert promoted.status_code in (200, 201), promoted.text
        spec = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}]}
        policy = {"id": "acme.prod", "version": "1.0.0", "agentId": AGENT, "scope": scope,
                  "spec": spec}  # fmt: skip
        assert api.post("/v1/gate-policies", json=policy).status_code == 201


def remote(cases: list[dict[str, Any]]) -> Any:
    """Another runtime serving one version's cases on one page."""

    async def page(request: Request) -> Response:
        return JSONResponse({"data": cases, "hasMore": False, "nextCursor": None})

    path = "/v1/test-sets/{testSetId}/versions/{version}/cases"
    return serve_app(Starlette(routes=[Route(path, page)]))


@pytest.fixture(scope="module")
def person(browser: Browser, server: DevServer) -> Iterator[BrowserContext]:
    """A browser logged in through the banner's link, on a wide screen."""
    seeded(server)
    found = re.search(r"Console\s+(http://\S+)", server.output())
    assert found, server.output()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(found.group(1))
    page.close()
    yield context
    context.close()


def try_flow(page: Page, server: DevServer, tool_version: str | None) -> str:
    """Try suggest-articles 0.1.0 from its suite's form, the tool at `tool_version`; the
    finished eval run's page address."""
    page.goto(f"{server.url}/console/test-cases/suites/{SUITE}")
    page.select_option("#try select[name=version]", "0.1.0")
    page.select_option(f"#try select[name='tool:{FIND}']", tool_version or "")
    page.check("#try input[name=reads]")
    page.click("#try button")
    page.wait_for_url(re.compile(r".*/console/eval-runs/[0-9a-f-]{36}$"))
    expect(page.locator("#headline")).to_be_visible(timeout=30_000)
    return page.url


def test_the_flow_demo_named_charted_and_pulled(
    person: BrowserContext, server: DevServer, shots: Path
) -> None:
    page = person.new_page()
    try_flow(page, server, None)
    try_flow(page, server, "0.2.0")
    named = f"{SUGGEST} 0.1.0 with {FIND} 0.2.0"
    expect(page.locator("h1#tried")).to_have_text(named)
    expect(page.locator("#headline")).to_contain_text(
        f"People's corrections rate {named} better than the recorded runs"
    )
    page.screenshot(path=str(shots / "eval-run-flow.png"), full_page=True)

    page.goto(f"{server.url}/console/test-cases/suites/{SUITE}")
    expect(page.locator("#eval-runs td.tried")).to_have_text([named, f"{SUGGEST} 0.1.0"])
    share = page.locator("#charts figure[data-metric=weightedYesShare]")
    expect(share.locator("circle.after")).to_have_count(2)
    expect(share.locator("text.version")).to_have_text(["0.1.0", "0.1.0"])
    expect(share.locator("text.swapped")).to_have_text(["+ find-articles 0.2.0"])
    expect(share.locator("figcaption")).to_contain_text("Higher is better.")
    assert share.locator("circle.after").nth(1).get_attribute("cy") == "12.0"
    page.screenshot(path=str(shots / "metrics-chart.png"), full_page=True)

    page.goto(f"{server.url}/console/test-cases")
    pulled = page.locator("#pulled tbody tr", has_text=PULLED)
    expect(pulled).to_contain_text("Pulled from http://127.0.0.1:")
    expect(pulled).to_contain_text("1.0.0 · 3 cases · 0 eval runs")
    page.screenshot(path=str(shots / "test-cases-all.png"), full_page=True)
    page.click(f"#pulled a:text('{PULLED}')")
    expect(page.locator("#cases section.case h3")).to_have_text(list(QUESTIONS)[::-1])

    page.select_option("#try select[name=version]", "0.1.0")
    page.click("#try button")
    page.wait_for_url(re.compile(r".*/console/eval-runs/[0-9a-f-]{36}$"))
    expect(page.locator("h1#tried")).to_have_text(f"{AGENT} 0.1.0", timeout=30_000)
    gate = page.locator(".judged.with-gate #gate")
    expect(gate.locator("#gate-verdict")).to_have_text("The gate would refuse this version:")
    expect(gate.locator("#make-live button")).to_be_disabled()
    page.screenshot(path=str(shots / "eval-run-gate.png"), full_page=True)


def every_page(server: DevServer) -> list[str]:
    """Each kind of console page, with the ids this server's data gives them; a run no one
    has corrected is started last, so the queue's page shows its correct form."""
    with server.client() as api:
        run = api.get("/v1/runs", params={"agentId": AGENT, "limit": 1}).json()["data"][0]
        fresh = {"agent": AGENT, "input": {"userMessage": QUESTIONS[0]}}
        assert api.post("/v1/runs", json=fresh, timeout=60).json()["status"] == "completed"
        listed = api.get("/v1/eval-runs", params={"limit": 10})
        assert listed.status_code == 200, listed.text
        evals = listed.json()["data"]
    paths = [
        "/console/runs", f"/console/runs/{run['id']}", f"/console/runs/{run['id']}/correct",
        "/console/test-cases", f"/console/test-cases/suites/{SUITE}",
        f"/console/test-cases/suites/{PULLED}", f"/console/test-cases/agents/{AGENT}",
        "/console/approvals", "/console/runs/no-such-run", f"/console/queue?agent={AGENT}",
    ]  # fmt: skip
    return paths + [f"/console/eval-runs/{e['runId']}" for e in evals]


SCROLLING_TABLES = """Array.from(document.querySelectorAll('table'))
  .filter(t => t.scrollWidth > t.clientWidth)
  .map(t => `${t.id || t.className || 'table'}: ${t.scrollWidth} > ${t.clientWidth}`)"""
"""Each table on the page wider inside than it is, which would scroll sideways in itself."""


def test_every_page_fits_390_px_and_axe_finds_nothing_serious(
    browser: Browser, person: BrowserContext, server: DevServer, shots: Path
) -> None:
    script = axe_script()
    narrow = browser.new_context(viewport={"width": 390, "height": 844},
                                 storage_state=person.storage_state())  # fmt: skip
    page = narrow.new_page()
    paths = every_page(server)
    assert len([p for p in paths if p.startswith("/console/eval-runs/")]) == 3
    widths, found, scrolling = {}, {}, {}
    for path in paths:
        page.goto(f"{server.url}{path}")
        widths[path] = page.evaluate("document.documentElement.scrollWidth")
        scrolling[path] = page.evaluate(SCROLLING_TABLES)
        if path.startswith("/console/queue"):
            expect(page.locator("#correct-items tr.item-row").first).to_be_visible()
        found[path] = severe_violations(page, script)
        name = path.strip("/").replace("/", "-")[:60]
        if path in ("/console/test-cases", f"/console/test-cases/suites/{SUITE}"):
            page.screenshot(path=str(shots / f"390-{name}.png"), full_page=True)
    stranger = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    stranger.goto(f"{server.url}/console/")
    widths["login"] = stranger.evaluate("document.documentElement.scrollWidth")
    found["login"] = severe_violations(stranger, script)
    narrow.close()
    assert {path: width for path, width in widths.items() if width > 390} == {}
    assert {path: tables for path, tables in scrolling.items() if tables} == {}
    said = {path: [f"{v['id']} ({v['impact']}): {', '.join(v['nodes'][:3])}" for v in severe]
            for path, severe in found.items() if severe}  # fmt: skip
    assert said == {}
