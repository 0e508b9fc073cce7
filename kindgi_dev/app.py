"""The app of one kindgi dev instance: the `/v1` API and the console, assembled above both.

Every error a request ends with takes one path, `handle_exception` (as Datasette's does):
the error as one of ours, then a console page on the console's paths and the contract's
envelope everywhere else.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from . import console
from .api import app as api
from .api import errors
from .api.front import Front
from .api.request_log import LEVELS as LOG_LEVELS
from .api.routing import ExactFirstRouter
from .runtime.prestart import Prestart
from .services import lifecycle
from .services.context import Context
from .services.lifecycle import Instance as Instance
from .settings import Settings

Progress = Callable[[str, float], None]


async def handle_exception(request: Request, exc: Exception) -> Response:
    """The answer to a request that raised `exc`: a console page on the console's paths (its
    module loads on the first such error, as its pages do), the envelope elsewhere."""
    error = errors.error_of(request, exc)
    if console.serves(request.url.path):
        from .console.web import error_page

        response = error_page(request, error)
    else:
        response = errors.from_error(error, errors.request_id_of(request.scope))
    response.headers.update(errors.headers_of(request, exc))
    return response


class FrontedApp(Starlette):
    """Starlette with `Front` as its one layer over the routes: Starlette's own two around
    it (500s, `HTTPException`) answered through `handle_exception` what `Front` answers
    through it, at a closure and an `await` a message every request (#29 point 2)."""

    def build_middleware_stack(self) -> ASGIApp:
        app: ASGIApp = self.router
        for cls, args, options in reversed(self.user_middleware):
            app = cls(app, *args, **options)
        return app


def create_app(
    settings: Settings,
    *,
    progress: Progress | None = None,
    pack_service_token: str | None = None,
    prestarted: Prestart | None = None,
    route_table: Path | None = None,
) -> Starlette:
    """The app of one kindgi dev instance; the store is opened and migrated here.

    `pack_service_token` and `prestarted` are what `kindgi dev` hands the pack runtime: the
    token of its pack service, and the index and pack service it began before its imports.
    `route_table` is where `kindgi dev` keeps the `/v1` routes between starts (see
    `api.route_table`); without it every resource module is imported here.
    """
    ctx = lifecycle.open_context(
        settings, pack_service_token=pack_service_token, prestarted=prestarted
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lifecycle.start(ctx, progress)
        try:
            yield
        finally:
            await lifecycle.stop(ctx)

    app = FrontedApp(
        middleware=[
            Middleware(
                Front,
                served=settings.host,
                answer_error=handle_exception,
                log=settings.log_level in LOG_LEVELS,
            )
        ],
    )
    app.router = ExactFirstRouter([*api.routes(route_table), *console.routes()], lifespan=lifespan)
    app.state.ctx = ctx
    app.state.console = console.Sessions()
    return app


def context_of(app: Starlette) -> Context:
    """The services' context of an app made by `create_app`."""
    ctx: Context = app.state.ctx
    return ctx


def describe(app: Starlette) -> Instance:
    """The running instance as `kindgi dev` shows it and writes it to `.kindgirc.json`."""
    return lifecycle.describe(context_of(app))


def on_pack_service(app: Starlette, hook: Callable[[], None]) -> None:
    """Call `hook` whenever the pack service moves (a new port after a restart)."""
    context_of(app).on_pack_service = hook


def console_link(app: Starlette, base_url: str) -> str:
    """The console's one-time login link for the banner."""
    sessions: console.Sessions = app.state.console
    return sessions.login_link(base_url)
