"""The Starlette app: `create_app(settings)` opens the store and serves every `/v1` resource."""

from __future__ import annotations

import contextlib
import importlib
import subprocess
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from .. import console
from ..domain.errors import KindgiError
from ..services import lifecycle
from ..services.context import Context
from ..services.lifecycle import Instance as Instance
from ..settings import Settings
from . import errors, openapi, system, unserved
from .framing import NoFramingMiddleware
from .hosts import HostCheckMiddleware
from .request_log import LEVELS as LOG_LEVELS
from .request_log import RequestLogMiddleware
from .routing import Endpoint, ordered, route

RESOURCES = (
    "system",
    "projects",
    "tenant",
    "agents",
    "tools",
    "flows",
    "runs",
    "run_failures",
    "conversations",
    "memory",
    "memory_erasures",
    "guardrails",
    "judgments",
    "judge_classes",
    "corrections",
    "test_sets",
    "test_set_registry",
    "test_set_pulls",
    "test_set_files",
    "eval_suites",
    "eval_runs",
    "blocks",
    "cost",
    "providers",
    "capabilities",
    "identity",
    "gate_policies",
    "releases",
    "approvals",
)
"""The resource modules of `/v1`, each with its `ENDPOINTS`."""

Progress = Callable[[str, float], None]


def endpoints() -> list[Endpoint]:
    """Every `/v1` endpoint, in the order the resources are listed."""
    found: list[Endpoint] = []
    for name in RESOURCES:
        found.extend(importlib.import_module(f"{__package__}.{name}").ENDPOINTS)
    return found


def create_app(
    settings: Settings,
    *,
    progress: Progress | None = None,
    pack_service_token: str | None = None,
    prestarted: subprocess.Popen[bytes] | None = None,
) -> Starlette:
    """The app of one kindgi dev instance; the store is opened and migrated here.

    `pack_service_token` and `prestarted` are what `kindgi dev` hands the pack runtime: the
    token it used before, and the pack index it started while the store was opening.
    """
    ctx = lifecycle.open_context(
        settings, pack_service_token=pack_service_token, prestarted=prestarted
    )
    declared = endpoints()
    routes: list[BaseRoute] = list(system.openapi_routes(lambda: openapi.document(declared)))
    routes.extend(ordered([route(e) for e in declared]))
    routes.extend(unserved.routes({(e.method, e.path) for e in declared}))
    routes.extend(console.routes())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lifecycle.start(ctx, progress)
        try:
            yield
        finally:
            await lifecycle.stop(ctx)

    app = Starlette(
        routes=routes,
        middleware=[
            *([Middleware(RequestLogMiddleware)] if settings.log_level in LOG_LEVELS else []),
            Middleware(NoFramingMiddleware),
            Middleware(errors.RequestIdMiddleware),
            Middleware(HostCheckMiddleware, served=settings.host),
        ],
        exception_handlers={
            HTTPException: errors.on_http_exception,
            KindgiError: errors.on_kindgi_error,
            Exception: errors.on_unexpected,
        },
        lifespan=lifespan,
    )
    app.state.ctx = ctx
    app.state.console = console.Sessions()
    return app


def context_of(app: Any) -> Context:
    """The services' context of an app made by `create_app`."""
    ctx: Context = app.state.ctx
    return ctx


def describe(app: Starlette) -> Instance:
    """The running instance as `kindgi dev` shows it and writes it to `.kindgirc.json`."""
    return lifecycle.describe(context_of(app))


def on_pack_service(app: Starlette, hook: Callable[[], None]) -> None:
    """Call `hook` whenever the pack service moves (a new port after a restart)."""
    context_of(app).on_pack_service = hook


def console_link(app: Any, base_url: str) -> str:
    """The console's one-time login link for the banner."""
    sessions: console.Sessions = app.state.console
    return sessions.login_link(base_url)
