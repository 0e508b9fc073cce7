"""The console's refused forms in headless Chromium, against the real `kindgi dev`: what the
API refuses, Correct this run refuses too, with a 400 and the API's message beside the field,
and every table as it was; and no page on another port can frame the logged-in console.

One server and one browser for the module.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from e2e.devserver import DevServer, copy_example, start
from playwright.sync_api import Browser, BrowserContext, Page, expect
from tables import every_row, read_only

pytestmark = [pytest.mark.slow]

AGENT = "acme-ops.article-picker"
TOOL = "acme-ops.search-articles"
ARGS = "decisions/shouldCall/0/args"
PASSWORD = "I forgot my password and can't sign in."


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DevServer, sqlite3.Connection]]:
    """The server, and a read-only connection to its database, kept open until the server
    has stopped: a reader that closes beside a live server must not be the last to close."""
    running = start(copy_example(tmp_path_factory.mktemp("forms") / "article-picker"))
    tables = read_only(running.pack / ".kindgi" / "dev.sqlite3")
    yield running, tables
    running.stop()
    tables.close()


@pytest.fixture(scope="module")
def server(served: tuple[DevServer, sqlite3.Connection]) -> DevServer:
    return served[0]


@pytest.fixture(scope="module")
def person(browser: Browser, server: DevServer) -> Iterator[BrowserContext]:
    """A browser that followed the banner's link."""
    link = re.search(r"Console\s+(http://\S+)", server.output())
    assert link, server.output()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(link.group(1))
    expect(page.locator("h1")).to_have_text("Runs")
    page.close()
    yield context
    context.close()


@pytest.fixture(scope="module")
def run_id(server: DevServer) -> str:
    with server.client() as api:
        body = {"agent": AGENT, "input": {"userMessage": PASSWORD}}
        run = api.post("/v1/runs", json=body)
    assert run.status_code == 201, run.text
    return str(run.json()["id"])


def save_refused(page: Page, tables: sqlite3.Connection) -> None:
    """Save the correction: the server answers 400 and writes nothing."""
    before = every_row(tables)
    with page.expect_response(lambda answer: answer.request.method == "POST") as saved:
        page.click("text=Save the correction")
    assert saved.value.status == 400
    assert every_row(tables) == before


ARGS_REFUSED = {
    "500 levels deep": (
        '{"q": ' + "[" * 500 + "]" * 500 + "}",
        "The body nests deeper than 64 levels.",
    ),
    "a number, not an object": ("23", "Input should be an object"),
    "1e23, beyond 64 bits": ('{"q": 1e23}', "q: numbers must fit in 64 bits."),
    "NaN": ('{"q": NaN}', "The body is not valid JSON: NaN is not JSON."),
    "a lone surrogate": (
        '{"q": "\\ud800"}',
        "q: holds a lone surrogate (\\ud800-\\udfff); text must be Unicode.",
    ),
}


@pytest.mark.parametrize(("args", "said"), ARGS_REFUSED.values(), ids=ARGS_REFUSED.keys())
def test_arguments_the_api_refuses_are_refused_beside_their_field(
    person: BrowserContext,
    served: tuple[DevServer, sqlite3.Connection],
    run_id: str,
    args: str,
    said: str,
) -> None:
    server, tables = served
    page = person.new_page()
    page.goto(f"{server.url}/console/runs/{run_id}/correct")
    page.locator("#decisions").get_by_label("Wrong", exact=True).check()
    page.select_option("#decisions select[name=should-call-tool]", TOOL)
    page.fill("#decisions input[name=should-call-args]", args)
    save_refused(page, tables)
    expect(page.locator(f'[data-field="{ARGS}"]')).to_have_text(said)
    expect(page.locator("#decisions input[name=should-call-args]")).to_have_value(args)
    page.close()


def test_a_rank_beyond_64_bits_is_refused_on_its_row(
    person: BrowserContext, served: tuple[DevServer, sqlite3.Connection], run_id: str
) -> None:
    server, tables = served
    page = person.new_page()
    page.goto(f"{server.url}/console/runs/{run_id}/correct")
    row = page.locator("#correct-items tbody tr").nth(2)
    row.get_by_label("No", exact=True).check()
    row.locator("input[type=number]").fill(str(2**63))
    save_refused(page, tables)
    error = row.locator(".field-error")
    expect(error).to_have_text("integers must fit in 64 bits.")
    expect(error).to_have_attribute("data-field", "items/2/rank")
    page.close()


@contextmanager
def framer(target: str) -> Iterator[str]:
    """Another site on another port of this machine, whose page frames `target`; its URL."""
    page = f'<h1>Framer</h1><iframe src="{target}"></iframe>'.encode()

    class Framer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Framer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def test_a_page_on_another_port_cannot_frame_the_console(
    person: BrowserContext, server: DevServer
) -> None:
    page = person.new_page()
    target = f"{server.url}/console/runs"
    with framer(target) as other, page.expect_response(target) as framed:
        page.goto(other)
        page.wait_for_load_state("load")
    assert framed.value.status == 200  # the cookie went along: only the headers stop it
    expect(page.locator("h1")).to_have_text("Framer")
    assert [frame.url for frame in page.frames] == [other, "chrome-error://chromewebdata/"]
    expect(page.frame_locator("iframe").locator("#start-run")).to_have_count(0)
    page.close()
