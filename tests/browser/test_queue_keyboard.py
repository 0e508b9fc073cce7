"""The correction queue in headless Chromium, against the real `kindgi dev`, with the keyboard
only (no mouse): three runs corrected with `j`/`k`, `y`/`n`, `r` and `Enter`, the `?` list of
keys, then the saved verdicts on a run's page and the marks on the runs list.

Set KINDGI_CONSOLE_SCREENSHOTS=1 to refresh docs/console/queue.png, keys.png and
run-corrected.png.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from e2e.devserver import DevServer, copy_example, start
from playwright.sync_api import Browser, Page, expect

pytestmark = [pytest.mark.slow]

AGENT = "acme-ops.article-picker"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "console"
QUESTIONS = [
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    running = start(copy_example(tmp_path_factory.mktemp("queue") / "article-picker"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def run_ids(server: DevServer) -> list[str]:
    """Three finished runs of the picker, oldest first."""
    made = []
    with server.client() as api:
        for question in QUESTIONS:
            run = api.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}})
            assert run.status_code == 201, run.text
            made.append(str(run.json()["id"]))
    return made


@pytest.fixture(scope="module")
def page(browser: Browser, server: DevServer) -> Iterator[Page]:
    """A logged-in page: the banner's link followed."""
    link = re.search(r"Console\s+(http://\S+)", server.output())
    assert link, server.output()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.goto(link.group(1))
    expect(opened.locator("h1")).to_have_text("Runs")
    yield opened
    context.close()


def shots(tmp_path: Path) -> Path:
    return DOCS if os.environ.get("KINDGI_CONSOLE_SCREENSHOTS") == "1" else tmp_path


def keys(page: Page, *pressed: str) -> None:
    for key in pressed:
        page.keyboard.press(key)


def on_run(page: Page, run_id: str, done: int) -> None:
    """The queue shows `run_id`'s form with `done` of the three runs corrected."""
    expect(page.locator("#queue-progress")).to_have_text(
        f"{done} of 3 runs corrected in this queue."
    )
    expect(page.locator("form#correct")).to_have_attribute(
        "action", f"/console/runs/{run_id}/correct"
    )


def verdicts(page: Page) -> list[str | None]:
    """Which of Yes/No each item row has checked."""
    rows = page.locator("#correct-items tr.item-row")
    return [
        rows.nth(i).locator("input[type=radio]:checked").get_attribute("value")
        if rows.nth(i).locator("input[type=radio]:checked").count()
        else None
        for i in range(rows.count())
    ]


def saved_items(api: httpx.Client, run_id: str) -> list[tuple[str, str, str | None]]:
    """The items of the one correction of the run, as (key, verdict, reason), by key."""
    (correction,) = api.get("/v1/corrections", params={"runId": run_id}).json()["data"]
    return sorted((i["key"], i["verdict"], i.get("reason")) for i in correction["items"])


def test_three_runs_corrected_with_the_keyboard_then_shown_back(
    page: Page, server: DevServer, run_ids: list[str], tmp_path: Path
) -> None:
    page.goto(f"{server.url}/console/queue?agent={AGENT}&order=oldest")
    on_run(page, run_ids[0], 0)
    expect(page.locator("tr.item-row.focused")).to_have_count(1)
    keys(page, "y", "j", "n", "r")
    page.keyboard.type("Not about signing in")
    expect(page.locator("input[name=reason-1]")).to_have_value("Not about signing in")
    assert verdicts(page) == ["right", "wrong", None, None]
    page.screenshot(path=str(shots(tmp_path) / "queue.png"), full_page=True)
    keys(page, "Enter")

    on_run(page, run_ids[1], 1)
    keys(page, "j", "j", "y", "k", "k", "y", "j", "n", "Escape")
    assert verdicts(page) == ["right", "wrong", "right", None]
    keys(page, "?")
    expect(page.locator("#keys")).to_be_visible()
    expect(page.locator("#keys")).to_contain_text("Mark the item Yes / No")
    page.screenshot(path=str(shots(tmp_path) / "keys.png"))
    keys(page, "Tab", "Tab")
    expect(page.locator("#keys-close")).to_be_focused()
    keys(page, "?")
    expect(page.locator("#keys")).to_be_hidden()
    keys(page, "Enter")

    on_run(page, run_ids[2], 2)
    keys(page, "j", "j", "j", "n", "r")
    page.keyboard.type("Names no article")
    keys(page, "Escape", "k", "k", "k", "y", "Enter")
    expect(page.locator("#queue-progress")).to_have_text("All 3 runs in this queue are corrected.")
    expect(page.locator("form#correct")).to_have_count(0)

    page.goto(f"{server.url}/console/runs/{run_ids[0]}")
    shown = page.locator("#items .verdict")
    expect(shown).to_have_text(
        ["you: Yes · no group, weighs 1", "you: No · no group, weighs 1 — “Not about signing in”"]
    )
    expect(page.locator(".correction.mine a")).to_have_attribute(
        "href", re.compile(rf"/console/test-cases/agents/{AGENT}#case-")
    )
    page.screenshot(path=str(shots(tmp_path) / "run-corrected.png"), full_page=True)
    page.goto(f"{server.url}/console/runs")
    marks = page.locator("#runs .corrected-mark")
    expect(marks).to_have_text(["✓ 1 correction (yours)"] * 3)
    with server.client() as api:
        saved = {run_id: saved_items(api, run_id) for run_id in run_ids}
    assert saved == {
        run_ids[0]: [("kb-101", "right", None), ("kb-102", "wrong", "Not about signing in")],
        run_ids[1]: [("kb-201", "right", None), ("kb-202", "right", None),
                     ("kb-203", "wrong", None)],
        run_ids[2]: [("answer", "wrong", "Names no article"), ("kb-301", "right", None)],
    }  # fmt: skip


def test_s_skips_the_queues_run(page: Page, server: DevServer) -> None:
    with server.client() as api:
        body = {"agent": AGENT, "input": {"userMessage": "Where do I change my address?"}}
        run = api.post("/v1/runs", json=body)
    assert run.status_code == 201, run.text
    page.goto(f"{server.url}/console/queue?agent={AGENT}&order=newest")
    expect(page.locator("form#correct")).to_have_attribute(
        "action", f"/console/runs/{run.json()['id']}/correct"
    )
    keys(page, "j", "s")
    expect(page.locator("main")).to_contain_text("No run is left past the ones you skipped.")
    assert f"after={run.json()['id']}" in page.url
