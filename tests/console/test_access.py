"""Who may use the console: the banner's one-time link, the cookie, Host, Origin and CSRF."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kindgi_dev.app import console_link, context_of, create_app
from kindgi_dev.services import eval_suites, projects
from kindgi_dev.settings import Settings

BASE = "http://127.0.0.1"


@pytest.fixture()
def app(tmp_path: Path) -> Iterator[object]:
    made = create_app(Settings(pack_dir=tmp_path, start_pack=False))
    with TestClient(made, base_url=BASE):
        yield made


def logged_in(app: object) -> TestClient:
    browser = TestClient(app, base_url=BASE)
    answer = browser.get(console_link(app, BASE), follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/console/"
    return browser


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def test_the_link_logs_in_once_with_an_httponly_strict_cookie(app: object) -> None:
    link = console_link(app, BASE)
    browser = TestClient(app, base_url=BASE)
    answer = browser.get(link, follow_redirects=False)
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert browser.get("/console/test-cases").status_code == 200
    again = TestClient(app, base_url=BASE).get(link)
    assert again.status_code == 401
    assert "already used" in again.text
    assert console_link(app, BASE) != link


def test_without_the_cookie_pages_show_the_login_hint_and_no_data(app: object) -> None:
    """`/console/` itself answers 200 (the real CLI's `kindgi console` checks that a
    runtime serves a console); every other page 401."""
    project = projects.get_default(context_of(app)).id
    stranger = TestClient(app, base_url=BASE)
    assert stranger.get("/", follow_redirects=False).headers["location"] == "/console/"
    for path, status in (("/console/", 200), ("/console/runs", 401), ("/console/test-cases", 401)):
        page = stranger.get(path)
        assert page.status_code == status
        assert "Log in to the console" in page.text
        assert project not in page.text


def test_the_api_token_pasted_logs_a_second_browser_in(app: object) -> None:
    token = context_of(app).identity.token
    browser = TestClient(app, base_url=BASE)
    wrong = browser.post("/console/login", data={"token": "nope"}, headers={"Origin": BASE})
    assert wrong.status_code == 401
    right = browser.post("/console/login", data={"token": token}, headers={"Origin": BASE})
    assert right.status_code == 200 and "<h1>Runs</h1>" in right.text


def test_another_host_header_is_refused_even_with_the_cookie(app: object) -> None:
    browser = logged_in(app)
    project = projects.get_default(context_of(app)).id
    for host in ("evil.example", "evil.example:80", "rebound.example:4000"):
        refused = browser.get("/console/runs", headers={"Host": host})
        assert refused.status_code == 400
        assert "is not this kindgi dev's address" in refused.text
        assert project not in refused.text


def test_a_form_from_another_origin_or_without_the_token_writes_nothing(app: object) -> None:
    browser = logged_in(app)
    csrf = csrf_of(browser.get("/console/test-cases").text)
    form = {"csrf": csrf, "id": "acme.picks", "version": "1.0.0", "subject": "agent:a"}
    foreign = browser.post("/console/test-cases", data=form,
                           headers={"Origin": "http://evil.example"})  # fmt: skip
    assert foreign.status_code == 403 and "another site" in foreign.text
    forged = browser.post("/console/test-cases", data={**form, "csrf": "guess"},
                          headers={"Origin": BASE})  # fmt: skip
    assert forged.status_code == 403 and "CSRF" in forged.text
    huge = browser.post("/console/test-cases", data={**form, "id": "x" * 2_000_000},
                        headers={"Origin": BASE})  # fmt: skip
    assert huge.status_code == 413 and "larger than" in huge.text
    assert eval_suites.judged_latest(context_of(app)) == []


def test_a_cursor_the_console_did_not_give_out_is_refused(app: object) -> None:
    browser = logged_in(app)
    for path in ("/console/runs", "/console/runs?agent=a"):
        refused = browser.get(path, params={"cursor": "WzFd"})
        assert refused.status_code == 400
        assert "cursor: not a cursor this server gave out" in refused.text


def test_a_refused_build_says_why_beside_the_field_and_writes_nothing(app: object) -> None:
    browser = logged_in(app)
    csrf = csrf_of(browser.get("/console/test-cases").text)
    form = {"csrf": csrf, "id": "acme.picks", "version": "1.0", "subject": "agent:a"}
    refused = browser.post("/console/test-cases", data=form, headers={"Origin": BASE})
    assert refused.status_code == 400
    assert 'data-field="version">version: must be a semver such as 1.0.0' in refused.text
    assert 'value="acme.picks"' in refused.text
    assert eval_suites.judged_latest(context_of(app)) == []
