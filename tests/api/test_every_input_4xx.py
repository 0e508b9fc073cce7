"""Issue 22, point 5, through the API: inputs that made a 500 are each a 4xx in the envelope
(or, for a header the contract says to read leniently, an answer from the start), and
nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import QUESTIONS, served, tutorial_runs
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))
DIGITS = "9" * 5000
"""A number longer than Python's int-string limit (4,300 digits)."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, str]]:
    with served(tmp_path_factory.mktemp("inputs")) as (client, ctx):
        runs = tutorial_runs(ctx)
        project = client.get("/v1/projects/default").json()["id"]
        for n in range(3):
            suite = {"id": f"acme.suite-{n}", "projectId": project, "version": "1.0.0",
                     "kind": "regression", "spec": {"cases": []}}  # fmt: skip
            assert client.post("/v1/eval-suites", json=suite).status_code == 201
            made = client.post("/v1/projects", json={"name": f"P{n}", "slug": f"p-{n}"})
            assert made.status_code == 201
        yield client, ctx, runs[PASSWORD]


def refused(answer: Any, code: str, field: str | None = None) -> None:
    """A 400 in the envelope with this code (and field)."""
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == code, error
    assert error["requestId"] == answer.headers["x-request-id"]
    if field is not None:
        assert error["details"]["field"] == field, error


def next_cursor(client: TestClient, path: str) -> str:
    page = client.get(path, params={"limit": 1}).json()
    assert page["hasMore"], page
    return str(page["nextCursor"])


def test_a_cursor_from_another_list_is_a_400_naming_the_cursor(app: Any) -> None:
    client, ctx, run_id = app
    other = tutorial_runs(ctx)[PASSWORD]
    before = every_row(Path(ctx.db.path))
    suites = next_cursor(client, "/v1/eval-suites")
    for path in ("/v1/runs", "/v1/corrections", "/v1/projects", "/v1/eval-runs"):
        refused(client.get(path, params={"cursor": suites}), "bad-input", "cursor")
    projects = next_cursor(client, "/v1/projects")
    refused(client.get("/v1/eval-suites", params={"cursor": projects}), "bad-input", "cursor")
    journal = next_cursor(client, f"/v1/runs/{run_id}/journal")
    refused(client.get(f"/v1/runs/{other}/journal", params={"cursor": journal}), "bad-input",
            "cursor")  # fmt: skip
    assert client.get("/v1/eval-suites", params={"cursor": suites}).status_code == 200
    assert client.get(f"/v1/runs/{run_id}/journal", params={"cursor": journal}).status_code == 200
    assert every_row(Path(ctx.db.path)) == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/projects", b'{"name": "\\ud800", "slug": "p"}', "name"),
        ("/v1/projects", b'{"name": "P", "slug": "p\\udfffq"}', "slug"),
        ("/v1/test-sets", b'{"id": "acme.t", "version": "1.0.0", "kind": "corrections",'
                          b' "spec": {"\\udc00": 1}}', "spec"),
        ("/v1/eval-suites", b'{"id": "acme.s", "projectId": "p", "version": "1.0.0",'
                            b' "kind": "regression", "spec": {"a": ["\\ud83d"]}}', "spec/a/0"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_in_a_body_is_refused_naming_its_field(
    app: Any, path: str, body: bytes, field: str
) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    refused(answer, "bad-input", field)
    assert "lone surrogate" in answer.json()["error"]["message"]
    assert every_row(Path(ctx.db.path)) == before


def test_a_paired_surrogate_escape_is_text_and_kept(app: Any) -> None:
    client, _, _ = app
    body = b'{"name": "\\ud83d\\ude00 picks", "slug": "emoji"}'
    made = client.post("/v1/projects", content=body, headers={"content-type": "application/json"})
    assert made.status_code == 201, made.text
    assert client.get(f"/v1/projects/{made.json()['id']}").json()["name"] == "\U0001f600 picks"


def test_numbers_int_cant_read_in_a_query_are_refused(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    for value in ("²", "٣", DIGITS):
        for path, name in (("/v1/runs", "limit"), (f"/v1/runs/{run_id}/journal", "since")):
            refused(client.get(path, params={name: value}), "validation-failed", name)
    assert every_row(Path(ctx.db.path)) == before


def test_a_last_event_id_int_cant_read_streams_from_the_start(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    whole = client.get(f"/v1/runs/{run_id}/stream").text
    assert "event: run.completed" in whole
    for given in ("²".encode(), f"{run_id}:{DIGITS}".encode(), f"{run_id}:٣".encode()):
        streamed = client.get(f"/v1/runs/{run_id}/stream", headers={"last-event-id": given})
        assert streamed.status_code == 200
        assert streamed.text == whole, "a malformed Last-Event-Id replays from the start"
    assert every_row(Path(ctx.db.path)) == before


def test_path_and_query_bytes_that_are_no_utf8_are_refused(app: Any) -> None:
    client, ctx, run_id = app
    before = every_row(Path(ctx.db.path))
    for target in (
        "/v1/runs/%ED%A0%80",
        "/v1/runs?agentId=%ED%A0%80",
        f"/v1/runs/{run_id}/journal?cursor=%FF",
        "/v1/corrections?runId=%C0%AF",
    ):
        answer = client.get(target)
        refused(answer, "bad-input", "path" if "?" not in target else "query string")
        assert "not UTF-8" in answer.json()["error"]["message"]
    assert client.get("/v1/runs?agentId=%C3%A9").status_code == 200, "é is UTF-8"
    assert every_row(Path(ctx.db.path)) == before


def test_a_time_beyond_utc_s_years_is_refused(app: Any) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    for given in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        refused(client.get("/v1/runs", params={"createdAfter": given}), "validation-failed",
                "createdAfter")  # fmt: skip
    assert every_row(Path(ctx.db.path)) == before


def test_a_time_before_the_year_1000_is_read_and_answered(app: Any) -> None:
    client, _, _ = app
    early = "0535-01-20T21:14:45.800Z"
    assert client.get("/v1/runs", params={"createdAfter": early}).status_code == 200
    listed = client.get("/v1/eval-runs", params={"from": early, "to": "0535-01-21T00:00:00Z"})
    assert listed.status_code == 200, listed.text
