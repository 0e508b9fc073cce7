"""The Starlette app: `create_app(settings)` opens the store and serves every `/v1` resource."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from ..domain.errors import KindgiError
from ..services import identity, lifecycle
from ..services.context import Context
from ..settings import Settings
from ..store.db import Database
from . import errors, openapi, system
from .routing import Endpoint, route

RESOURCES = (
    "system",
    "projects",
    "agents",
    "tools",
    "flows",
    "runs",
    "conversations",
    "judgments",
    "judge_classes",
    "corrections",
    "test_sets",
    "eval_suites",
    "eval_runs",
)
"""The resource modules of `/v1`, each with its `ENDPOINTS`."""

Progress = Callable[[str, float], None]


def endpoints() -> list[Endpoint]:
    """Every `/v1` endpoint, in the order the resources are listed."""
    found: list[Endpoint] = []
    for name in RESOURCES:
        found.extend(importlib.import_module(f"{__package__}.{name}").ENDPOINTS)
    return found


def create_app(settings: Settings, *, progress: Progress | None = None) -> Starlette:
    """The app of one kindgi dev instance; the store is opened and migrated here."""
    db = Database(settings.database_path)
    db.migrate()
    ctx = Context(db=db, identity=identity.ensure(db), settings=settings)
    declared = endpoints()
    routes: list[BaseRoute] = [system.openapi_route(lambda: openapi.document(declared))]
    routes.extend(route(e) for e in declared)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lifecycle.start(ctx, progress)
        try:
            yield
        finally:
            await lifecycle.stop(ctx)
            db.close()

    app = Starlette(
        routes=routes,
        middleware=[Middleware(errors.RequestIdMiddleware)],
        exception_handlers={
            HTTPException: errors.on_http_exception,
            KindgiError: errors.on_kindgi_error,
            Exception: errors.on_unexpected,
        },
        lifespan=lifespan,
    )
    app.state.ctx = ctx
    return app


def context_of(app: Any) -> Context:
    """The services' context of an app made by `create_app`."""
    return app.state.ctx
