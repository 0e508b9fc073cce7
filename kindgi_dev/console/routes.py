"""The console's routes: `/` and `/console/…`, each page wrapped by `web.page`."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from . import corrections, eval_runs, runs, test_cases
from .session import COOKIE
from .web import context_of, form_of, page, plain, same_origin, sessions_of, templates


async def root(request: Request) -> Response:
    """`/` is the console."""
    return RedirectResponse("/console/", status_code=307)


def _logged_in(session_id: str) -> Response:
    response = RedirectResponse("/console/", status_code=303)
    response.set_cookie(COOKIE, session_id, httponly=True, samesite="strict", path="/")
    return response


async def login(request: Request) -> Response:
    """The banner's link: a one-time token swapped for a session cookie, then a clean URL.

    A POST takes the API token from `.kindgirc.json` instead, for a second browser.
    """
    sessions = sessions_of(request)
    if request.method == "POST":
        if not same_origin(request):
            return plain(request, 403, "Refused", "This form was sent from another site.")
        given = (await form_of(request)).get("token", "")
        token = context_of(request).identity.token
        if hmac.compare_digest(given.strip().encode(), token.encode()):
            return _logged_in(sessions.open())
    else:
        session_id = sessions.exchange(request.query_params.get("token", ""))
        if session_id is not None:
            return _logged_in(session_id)
    return templates.TemplateResponse(
        request, "login.html", {"csrf": "", "failed": True}, status_code=401
    )


def routes() -> list[BaseRoute]:
    """Every console route, and `/` redirecting to it."""
    return [
        Route("/", root),
        Route("/console/login", login, methods=["GET", "POST"]),
        Mount(
            "/console/static",
            StaticFiles(packages=[("kindgi_dev.console", "static")]),
            name="console-static",
        ),
        Route("/console/", page(runs.list_runs)),
        Route("/console/runs", page(runs.list_runs)),
        Route("/console/runs", page(runs.start_run), methods=["POST"]),
        Route("/console/runs/{runId}", page(runs.show_run)),
        Route("/console/runs/{runId}/correct", page(corrections.form)),
        Route("/console/runs/{runId}/correct", page(corrections.save), methods=["POST"]),
        Route("/console/test-cases", page(test_cases.index)),
        Route("/console/test-cases", page(test_cases.build), methods=["POST"]),
        Route("/console/test-cases/suites/{suiteId}", page(test_cases.suite)),
        Route(
            "/console/test-cases/suites/{suiteId}/try",
            page(eval_runs.try_on_suite),
            methods=["POST"],
        ),
        Route("/console/test-cases/agents/{agentId}", page(test_cases.agent_set)),
        Route(
            "/console/test-cases/agents/{agentId}/cases",
            page(test_cases.add_case),
            methods=["POST"],
        ),
        Route(
            "/console/test-cases/agents/{agentId}/cases/{caseId}/retire",
            page(test_cases.retire),
            methods=["POST"],
        ),
        Route(
            "/console/test-cases/agents/{agentId}/try",
            page(eval_runs.try_on_test_set),
            methods=["POST"],
        ),
        Route("/console/eval-runs/{runId}", page(eval_runs.show)),
        Route("/console/eval-runs/{runId}/events", page(eval_runs.events)),
    ]
