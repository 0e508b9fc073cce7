"""What a start leaves unimported, and that each path which needs it still works from a
fresh process: httpx at the first HTTP model call (a tool call through the pack service
never imports it), jinja2 and the console's pages at the first console request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from examples_committed import copy_example
from stubs.openai_stub import OpenAIStub

TESTS = Path(__file__).resolve().parents[1]

NOT_AT_START = ("httpx", "rich", "jinja2", "kindgi_dev.console.web")
"""Modules no start needs: the HTTP client (and the command line it pulls in where `rich`
is installed), the console's pages and their templates."""

SERVED = """
import json, sys, urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

sys.path.insert(0, sys.argv[2])
from serving import serve_app

from kindgi_dev.app import console_link, create_app, describe
from kindgi_dev.settings import Settings

WATCHED = json.loads(sys.argv[3])
app = create_app(Settings(pack_dir=Path(sys.argv[1]), watch=False))
opener = urllib.request.build_opener(
    urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(CookieJar())
)
with serve_app(app, timeout_s=60) as url:
    print("started:", [name for name in WATCHED if name in sys.modules])
    body = {"agent": "acme-ops.article-picker",
            "input": {"userMessage": "I forgot my password and can't sign in."}}
    request = urllib.request.Request(
        url + "/v1/runs", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": "Bearer " + describe(app).token,
                 "Content-Type": "application/json"},
    )
    with opener.open(request, timeout=60) as answer:
        run = json.load(answer)
        found = [article["id"] for article in run["output"]["output"]["articles"]]
        print("run:", answer.status, run["status"], found, "httpx" in sys.modules)
    with opener.open(console_link(app, url), timeout=60) as page:
        print("console:", page.status, "<h1" in page.read().decode(), "jinja2" in sys.modules)
"""

PROVIDER = """
import asyncio, sys

from kindgi_dev.models import Message, Turn
from kindgi_dev.runtime.providers.openai import OpenAIAdapter

print("imported:", "httpx" in sys.modules)
adapter = OpenAIAdapter(model="gpt-4o-mini", api_key="sk-test", base_url=sys.argv[1])
turn = Turn("acme.a", "1.0.0", "Be brief.", (Message("user", "Hi"),), ())
reply = asyncio.run(adapter.next_step(turn))
print("reply:", reply.text, reply.model, "httpx" in sys.modules)
"""


def _run(script: str, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_start_imports_neither_httpx_nor_the_console_and_their_first_use_loads_them(
    tmp_path: Path,
) -> None:
    """The real start (the example indexed, its pack service up, the app serving): none of
    `NOT_AT_START` is imported; then a run's tool call reaches the pack service, still
    without httpx (the article it answers comes from the tool), and the console's login
    link opens its first page."""
    pack = copy_example(tmp_path / "pack")
    lines = _run(SERVED, str(pack), str(TESTS), json.dumps(NOT_AT_START))
    assert lines == [
        "started: []",
        "run: 201 completed ['kb-101', 'kb-102', 'kb-103'] False",
        "console: 200 True True",
    ]


def test_the_first_http_model_call_imports_httpx_and_is_answered(openai_stub: OpenAIStub) -> None:
    """An OpenAI-compatible adapter imports no HTTP client until it asks its model."""
    openai_stub.queue_text("Hello there.")
    lines = _run(PROVIDER, openai_stub.base_url)
    assert lines == ["imported: False", "reply: Hello there. gpt-4o-mini-2024-07-18 True"]
    (request,) = openai_stub.requests
    assert request.path == "/v1/chat/completions"
    assert request.json["messages"][-1] == {"role": "user", "content": "Hi"}
