"""One error path: what a request raises is a console page on the console's paths and the
contract's envelope on every other, with the same status, code and headers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.app import console_link, context_of, create_app
from kindgi_dev.services import projects, runs
from kindgi_dev.settings import Settings

BASE = "http://127.0.0.1"


@pytest.fixture()
def app(tmp_path: Path) -> Iterator[Any]:
    made = create_app(Settings(pack_dir=tmp_path, start_pack=False))
    with TestClient(made, base_url=BASE):
        yield made


def person(app: Any) -> TestClient:
    """A browser logged in to the console."""
    browser = TestClient(app, base_url=BASE)
    assert browser.get(console_link(app, BASE), follow_redirects=False).status_code == 303
    return browser


def api(app: Any) -> TestClient:
    client = TestClient(app, base_url=BASE)
    client.headers["Authorization"] = f"Bearer {context_of(app).identity.token}"
    return client


def test_an_unknown_console_page_is_a_console_page_and_an_unknown_api_path_the_envelope(
    app: Any,
) -> None:
    page = person(app).get("/console/nope")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<h1>not-found</h1>" in page.text
    assert "No route GET /console/nope." in page.text
    assert '<a href="/console/runs">Runs</a>' in page.text

    answer = api(app).get("/v1/nope")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not-found"
    assert answer.json()["error"]["message"] == "No route GET /v1/nope."


def test_a_method_not_served_says_allow_on_both(app: Any) -> None:
    page = person(app).delete("/console/runs")
    assert page.status_code == 405
    assert page.headers["allow"] == "GET, HEAD, POST"
    assert "<h1>method-not-allowed</h1>" in page.text

    answer = api(app).delete("/v1/projects")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD, POST"
    assert answer.json()["error"]["code"] == "method-not-allowed"


def test_an_unexpected_error_is_the_500_page_or_envelope_without_its_trace(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(runs, "list_records", explode)
    monkeypatch.setattr(projects, "get_default", explode)
    before = every_row(context_of(app).settings.database_path)

    page = person(app).get("/console/runs", headers={"X-Request-Id": "page-1"})
    assert page.status_code == 500
    assert page.headers["content-type"].startswith("text/html")
    assert "<h1>internal-server-error</h1>" in page.text
    assert "page-1" in page.text and "secret" not in page.text

    answer = api(app).get("/v1/projects/default", headers={"X-Request-Id": "api-1"})
    assert answer.status_code == 500
    error = answer.json()["error"]
    assert (error["code"], error["requestId"]) == ("internal-server-error", "api-1")
    assert "api-1" in error["message"] and "secret" not in answer.text
    assert every_row(context_of(app).settings.database_path) == before


def test_the_api_imports_nothing_of_the_console() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, kindgi_dev.api.app; "
         "print(sorted(m for m in sys.modules if m.startswith('kindgi_dev.console')))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert loaded.stdout.strip() == "[]"
