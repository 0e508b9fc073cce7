"""The official client 0.1.10's whole operation table, walked against our routes.

Every operation is served, or answers `501 not-in-kindgi-dev` naming its feature (one table,
`kindgi_dev.api.unserved`); never the router's `404 No route` or `405`. A request for each
operation, with its `{params}` filled in, reaches the route of that operation's own template:
a fixed path such as `/v1/runs/failures` is never taken by a `{runId}` route beside it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
from kindgi.client._resources import OPERATIONS
from starlette.routing import Match
from starlette.testclient import TestClient

from kindgi_dev.api.app import endpoints
from kindgi_dev.api.unserved import UNSERVED
from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings

PARAM = re.compile(r"{(\w+)}")
SERVED = {(e.method, e.path) for e in endpoints()} | {("GET", "/v1/openapi.json")}
CLIENT = {(op.method, op.path) for op in OPERATIONS.values()}
TABLE = {(method, path): f.key for f in UNSERVED for method, path in f.routes()}
ROUTER_CODES = {"not-found", "method-not-allowed", "not-in-kindgi-dev"}


def concrete(template: str) -> str:
    """A path of `template` with each `{param}` filled in as a value no fixed segment has."""
    return PARAM.sub(lambda m: f"sample-{m.group(1)}", template)


def reached(app: object, method: str, path: str) -> str | None:
    """The template of the route a request goes to, as Starlette picks it (first full match)."""
    for route in app.router.routes:  # type: ignore[attr-defined]
        match, _ = route.matches({"type": "http", "method": method, "path": path})
        if match == Match.FULL:
            return str(route.path)
    return None


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    pack = tmp_path_factory.mktemp("walk")
    (pack / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "walk"\n')
    app = create_app(Settings(pack_dir=pack, start_pack=False, watch=False))
    with TestClient(app, base_url="http://127.0.0.1") as http:
        http.headers["Authorization"] = f"Bearer {context_of(app).identity.token}"
        yield http


def test_every_operation_reaches_its_own_route(client: TestClient) -> None:
    astray = {
        op.id: reached(client.app, op.method, concrete(op.path))
        for op in OPERATIONS.values()
        if reached(client.app, op.method, concrete(op.path)) != op.path
    }
    assert astray == {}


def test_runs_failures_is_its_own_route_not_a_run_id(client: TestClient) -> None:
    assert reached(client.app, "GET", "/v1/runs/failures") == "/v1/runs/failures"
    assert reached(client.app, "GET", "/v1/runs/some-run") == "/v1/runs/{runId}"


def test_every_operation_is_served_or_answers_not_in_kindgi_dev(client: TestClient) -> None:
    answers = {}
    for op in OPERATIONS.values():
        answer = client.request(
            op.method, concrete(op.path), json={} if op.method != "GET" else None
        )
        code = answer.json()["error"]["code"] if answer.status_code >= 400 else None
        answers[op.id] = (op.method, op.path, answer.status_code, code)
    router = {k: v for k, v in answers.items() if (v[0], v[1]) in SERVED and v[3] in ROUTER_CODES}
    assert router == {}, "served operations the router refused"
    unserved = {k: v for k, v in answers.items() if (v[0], v[1]) not in SERVED}
    assert {v[2:] for v in unserved.values()} == {(501, "not-in-kindgi-dev")}
    assert len(SERVED & CLIENT) + len({(v[0], v[1]) for v in unserved.values()}) == len(CLIENT)


def test_the_answer_names_the_feature_and_a_deployed_runtime(client: TestClient) -> None:
    answer = client.get("/v1/schedules")
    assert answer.status_code == 501
    error = answer.json()["error"]
    assert error["code"] == "not-in-kindgi-dev"
    assert error["message"] == (
        "Schedules run on a deployed Kindgi runtime; kindgi dev doesn't run them."
    )
    assert error["details"] == {"feature": "schedules", "operation": "GET /v1/schedules"}
    assert error["requestId"] == answer.headers["x-request-id"]


def test_unknown_paths_and_methods_stay_404_and_405(client: TestClient) -> None:
    unknown = client.get("/v1/schedulez")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not-found")
    assert unknown.json()["error"]["message"] == "No route GET /v1/schedulez."
    deeper = client.get("/v1/schedules/a/b/c")
    assert (deeper.status_code, deeper.json()["error"]["code"]) == (404, "not-found")
    wrong = client.put("/v1/schedules", json={})
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (405, "method-not-allowed")


def test_an_unserved_operation_still_needs_the_token(client: TestClient) -> None:
    bare = TestClient(client.app, base_url="http://127.0.0.1")
    answer = bare.get("/v1/schedules")
    assert (answer.status_code, answer.json()["error"]["code"]) == (401, "auth-missing")


def test_each_row_of_the_table_is_the_clients_and_still_unserved() -> None:
    not_clients = sorted(f"{m} {p}" for m, p in TABLE if (m, p) not in CLIENT)
    assert not_clients == [], "rows name operations the client 0.1.10 doesn't have"
    entries = Counter((m, p) for f in UNSERVED for m, p in f.routes())
    assert [k for k, n in entries.items() if n > 1] == [], "an operation in two rows"
    leftover = sorted(f.key for f in UNSERVED if all(r in SERVED for r in f.routes()))
    assert leftover == [], "rows whose every operation is served now: delete them"
    partly = sorted(f"{TABLE[r]}: {r[0]} {r[1]}" for r in TABLE if r in SERVED)
    assert partly == [], "operations served now: delete them from their rows"
    assert len({f.key for f in UNSERVED}) == len(UNSERVED)
