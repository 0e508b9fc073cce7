"""The one front layer and the exact-path route table (#29 point 2): the same answers as the
five layers and the walk through every pattern they replace.

The front layer gives every answer its headers in one order (the route's own, then
`X-Request-Id`, then the two that forbid framing), on a success, a route's refusal, the
router's 404 and 405, and the `Host` check's 400. The exact table answers a path without
parameters only when Starlette's walk picks that very route, so it reaches what the walk
reached for every route of the OpenAPI document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import served, tutorial_runs
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from kindgi_dev.api.front import Front, answer_headers
from kindgi_dev.api.routing import ExactFirstRouter, exact_table, first_full_match

FRAMING = [("content-security-policy", "frame-ancestors 'none'"), ("x-frame-options", "DENY")]
PARAM = re.compile(r"{(\w+)}")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    with served(tmp_path) as (client, ctx):
        yield client, next(iter(tutorial_runs(ctx).values()))


def last_headers(response: object) -> list[tuple[str, str]]:
    """The last three headers of an answer, as sent."""
    raw: list[tuple[bytes, bytes]] = response.headers.raw  # type: ignore[attr-defined]
    return [(k.decode(), v.decode()) for k, v in raw[-3:]]


def test_the_app_has_one_layer_of_its_own(app: tuple[TestClient, str]) -> None:
    client, _ = app
    layers = [m.cls for m in client.app.user_middleware]  # type: ignore[attr-defined]
    assert layers == [Front]
    assert isinstance(client.app.router, ExactFirstRouter)  # type: ignore[attr-defined]


def test_every_answer_ends_with_its_id_and_the_framing_headers(
    app: tuple[TestClient, str],
) -> None:
    client, run = app
    item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
    answers = {
        201: client.post("/v1/corrections", json={"runId": run, "items": [item]},
                         headers={"X-Request-Id": "made"}),
        404: client.get("/v1/runs/00000000-0000-4000-8000-000000000000",
                        headers={"X-Request-Id": "missing"}),
        405: client.delete("/v1/corrections", headers={"X-Request-Id": "method"}),
        400: client.get("/health", headers={"Host": "evil.example", "X-Request-Id": "host"}),
    }  # fmt: skip
    ids = {201: "made", 404: "missing", 405: "method", 400: "host"}
    for status, response in answers.items():
        assert response.status_code == status, response.text
        assert last_headers(response) == [("x-request-id", ids[status]), *FRAMING]
        if status >= 400:
            assert response.json()["error"]["requestId"] == ids[status]
    assert answers[405].headers["allow"] == "GET, HEAD, POST"
    assert answers[404].json()["error"]["code"] == "run-not-found"
    assert answers[400].json()["error"]["code"] == "bad-input"


def test_a_routes_own_id_and_framing_headers_are_replaced() -> None:
    given = [(b"x-request-id", b"route"), (b"X-Frame-Options", b"SAMEORIGIN"), (b"a", b"1")]
    assert answer_headers(given, b"req-1") == [
        (b"a", b"1"),
        (b"x-request-id", b"req-1"),
        (b"content-security-policy", b"frame-ancestors 'none'"),
        (b"x-frame-options", b"DENY"),
    ]


def test_the_exact_table_reaches_what_the_walk_reaches(app: tuple[TestClient, str]) -> None:
    client, _ = app
    router = client.app.router  # type: ignore[attr-defined]
    document = client.get("/openapi.json").json()
    fixed = 0
    for template, operations in document["paths"].items():
        path = PARAM.sub(lambda m: f"sample-{m.group(1)}", template)
        for method in operations:
            scope = {"type": "http", "path": path, "root_path": "", "method": method.upper()}
            walked = first_full_match(router.routes, scope)
            assert walked is not None and walked.path == template, (method, template)
            found = router.exact.get((path, method.upper()))
            if "{" in template:
                assert found is None, (method, template)
            else:
                assert found is walked, (method, template)
                fixed += 1
    assert fixed >= 40  # the lookup serves the API's many fixed paths, not a handful


def test_a_fixed_path_a_pattern_takes_first_is_left_to_the_walk() -> None:
    def answer(request: object) -> PlainTextResponse:
        return PlainTextResponse("")

    pattern = Route("/a/{name}", answer, methods=["GET"])
    shadowed = Route("/a/b", answer, methods=["GET", "POST"])
    table = exact_table([pattern, shadowed])
    assert table == {("/a/b", "POST"): shadowed}  # GET /a/b is the pattern's, as walked
