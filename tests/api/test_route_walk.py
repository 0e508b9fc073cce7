"""The official client 0.1.10's whole operation table, walked against our routes.

A request for each operation, with its path's `{params}` filled in, must reach the route of
that operation's own template: a fixed path such as `/v1/runs/failures` must never be taken
by a `{runId}` route declared beside it.
"""

from __future__ import annotations

import re

import pytest
from kindgi.client._resources import OPERATIONS
from starlette.routing import Match

from kindgi_dev.api.app import create_app, endpoints
from kindgi_dev.settings import Settings

PARAM = re.compile(r"{(\w+)}")
SERVED = {(e.method, e.path) for e in endpoints()}


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
def app(tmp_path_factory: pytest.TempPathFactory) -> object:
    pack = tmp_path_factory.mktemp("walk")
    (pack / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "walk"\n')
    return create_app(Settings(pack_dir=pack, start_pack=False, watch=False))


def test_no_served_operation_is_shadowed_by_another_route(app: object) -> None:
    shadowed = {
        op.id: reached(app, op.method, concrete(op.path))
        for op in OPERATIONS.values()
        if (op.method, op.path) in SERVED and reached(app, op.method, concrete(op.path)) != op.path
    }
    assert shadowed == {}


def test_runs_failures_is_its_own_route_not_a_run_id(app: object) -> None:
    assert reached(app, "GET", "/v1/runs/failures") == "/v1/runs/failures"
    assert reached(app, "GET", "/v1/runs/some-run") == "/v1/runs/{runId}"
