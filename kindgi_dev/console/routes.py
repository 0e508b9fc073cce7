"""The console's routes: `/` and `/console/…`, each page wrapped by `web.page`.

A page's module (and jinja2 with it) is imported when the page is first asked for, not when
kindgi dev starts: most starts never open the console, and the templates cost start time.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from ..api.limits import check_url
from ..domain.errors import BadInput

Endpoint = Callable[[Request], Awaitable[Response]]


async def root(request: Request) -> Response:
    """`/` is the console."""
    return RedirectResponse("/console/", status_code=307)


def _lazy(target: str, *, as_page: bool = True) -> Endpoint:
    """The endpoint `module:function` of this package, imported on its first request and
    wrapped by `web.page` (a login is no page: it makes the session pages need)."""
    module_name, name = target.split(":")
    loaded: list[Endpoint] = []

    async def endpoint(request: Request) -> Response:
        if not loaded:
            module = importlib.import_module(f"{__package__}.{module_name}")
            handler = getattr(module, name)
            if as_page:
                from .web import page

                handler = page(handler)
            loaded.append(handler)
        return await loaded[0](request)

    return endpoint


class _Static(StaticFiles):
    """The console's own files; a path no file can have (a NUL byte, `%00`, or bytes that
    are no UTF-8) is a 400 page, where the file system would fail on it."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            check_url(scope.get("raw_path") or b"", b"")
            if "\x00" in path:
                raise BadInput("A file's path can't hold a NUL byte (%00).")
        except BadInput as error:
            from .web import plain

            return plain(Request(scope), 400, "Not a file's path", error.message)
        return await super().get_response(path, scope)


def serves(path: str) -> bool:
    """Whether a path is the console's (`/` and all under `/console`): its errors are pages."""
    return path in ("/", "/console") or path.startswith("/console/")


def routes() -> list[BaseRoute]:
    """Every console route, and `/` redirecting to it."""
    return [
        Route("/", root),
        Route("/console/login", _lazy("login:login", as_page=False), methods=["GET", "POST"]),
        Mount(
            "/console/static",
            _Static(packages=[("kindgi_dev.console", "static")]),
            name="console-static",
        ),
        Route("/console/", _lazy("runs:list_runs")),
        Route("/console/runs", _lazy("runs:list_runs")),
        Route("/console/runs", _lazy("runs:start_run"), methods=["POST"]),
        Route("/console/runs/{runId}", _lazy("runs:show_run")),
        Route("/console/queue", _lazy("queue:show")),
        Route("/console/runs/{runId}/correct", _lazy("corrections:form")),
        Route("/console/runs/{runId}/correct", _lazy("corrections:save"), methods=["POST"]),
        Route("/console/test-cases", _lazy("test_cases:index")),
        Route("/console/test-cases", _lazy("test_cases:build"), methods=["POST"]),
        Route("/console/test-cases/suites/{suiteId}", _lazy("test_cases:suite")),
        Route(
            "/console/test-cases/suites/{suiteId}/try",
            _lazy("eval_runs:try_on_suite"),
            methods=["POST"],
        ),
        Route("/console/test-cases/agents/{agentId}", _lazy("test_cases:agent_set")),
        Route(
            "/console/test-cases/agents/{agentId}/cases",
            _lazy("test_cases:add_case"),
            methods=["POST"],
        ),
        Route(
            "/console/test-cases/agents/{agentId}/cases/{caseId}/retire",
            _lazy("test_cases:retire"),
            methods=["POST"],
        ),
        Route(
            "/console/test-cases/agents/{agentId}/try",
            _lazy("eval_runs:try_on_test_set"),
            methods=["POST"],
        ),
        Route("/console/approvals", _lazy("approvals:index")),
        Route("/console/approvals/{approvalId}", _lazy("approvals:decide"), methods=["POST"]),
        Route("/console/eval-runs/{runId}", _lazy("eval_runs:show")),
        Route("/console/eval-runs/{runId}/events", _lazy("eval_runs:events")),
        Route(
            "/console/eval-runs/{runId}/make-live",
            _lazy("eval_runs:make_live"),
            methods=["POST"],
        ),
    ]
