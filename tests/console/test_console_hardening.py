"""The console can't be framed by another page, and two consoles on two ports of one machine
keep their own logins: the session cookie is named for its instance's port."""

from __future__ import annotations

import re
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from kindgi_dev.app import console_link, create_app
from kindgi_dev.settings import Settings

BASE = "http://127.0.0.1"
NO_FRAMING = {"content-security-policy": "frame-ancestors 'none'", "x-frame-options": "DENY"}


@pytest.fixture()
def app(tmp_path: Path) -> Iterator[Any]:
    made = create_app(Settings(pack_dir=tmp_path, start_pack=False))
    with TestClient(made, base_url=BASE):
        yield made


def logged_in(app: Any, base: str = BASE, cookies: CookieJar | None = None) -> TestClient:
    browser = TestClient(app, base_url=base, cookies=cookies)
    answer = browser.get(console_link(app, base), follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return browser


def test_no_console_answer_may_be_framed(app: Any) -> None:
    stranger, person = TestClient(app, base_url=BASE), logged_in(app)
    csrf = re.search(r'name="csrf" value="([^"]+)"', person.get("/console/runs").text)
    assert csrf is not None
    answers = {
        "/": (stranger.get("/", follow_redirects=False), 307),
        "the login page": (stranger.get("/console/"), 200),
        "a page without the cookie": (stranger.get("/console/runs"), 401),
        "a spent login link": (stranger.get("/console/login?token=spent"), 401),
        "the login link": (TestClient(app, base_url=BASE).get(
            console_link(app, BASE), follow_redirects=False), 303),
        "a page": (person.get("/console/test-cases"), 200),
        "an error page": (person.get("/console/runs/nope"), 404),
        "a refused form": (person.post("/console/test-cases", data={"csrf": csrf.group(1)},
                                       headers={"Origin": "http://evil.example"}), 403),
        "a refused Host": (person.get("/console/runs", headers={"Host": "evil.example"}), 400),
        "an unknown page": (person.get("/console/nope"), 404),
        "a static file": (person.get("/console/static/console.css"), 200),
    }  # fmt: skip
    for name, (answer, status) in answers.items():
        assert answer.status_code == status, name
        assert {k: answer.headers.get(k) for k in NO_FRAMING} == NO_FRAMING, name


def test_two_consoles_on_two_ports_keep_their_own_logins(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    apps = [create_app(Settings(pack_dir=tmp_path / name, start_pack=False))
            for name in ("one", "two")]  # fmt: skip
    jar = CookieJar()  # one browser: it sends a host's cookies to every port of it
    with TestClient(apps[0]), TestClient(apps[1]):
        first = logged_in(apps[0], f"{BASE}:4000", jar)
        second = logged_in(apps[1], f"{BASE}:4001", jar)
        assert sorted(cookie.name for cookie in jar) == [
            "kindgi_console_4000", "kindgi_console_4001"]  # fmt: skip
        assert first.get("/console/runs").status_code == 200
        assert second.get("/console/runs").status_code == 200
        other = next(cookie.value for cookie in jar if cookie.name == "kindgi_console_4001")
        borrowed = TestClient(apps[0], base_url=f"{BASE}:4000",
                              cookies={"kindgi_console_4000": other})  # fmt: skip
        refused = borrowed.get("/console/runs")
    assert refused.status_code == 401
    assert "Log in to the console" in refused.text
