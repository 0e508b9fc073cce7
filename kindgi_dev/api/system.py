"""Health, readiness and the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from starlette.responses import Response
from starlette.routing import Route

from ..domain.json import JSONObject
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .responses import dumps, json_response
from .routing import route
from .wire import OpenModel, WireModel


class HealthResult(WireModel):
    """`{"ok": true}`."""

    ok: Literal[True]


class ReadyResult(OpenModel):
    """`{"ok": true}` when ready; 503 with the reason otherwise."""

    ok: bool
    reason: str | None = None


async def health(call: Call[NoBody, NoQuery]) -> JSONObject:
    """The process answers."""
    return {"ok": True}


async def ready(call: Call[NoBody, NoQuery]) -> Response | JSONObject:
    """The store is open and the pack, when there is one, is loaded. Public like `/health`:
    the real CLI's `kindgi dev` probes it without a token to see whether one already runs."""
    runtime = call.ctx.runtime
    problem = runtime.not_ready() if runtime is not None else None
    if problem:
        return json_response({"ok": False, "reason": problem}, 503)
    return {"ok": True}


OPENAPI_PATHS = (("/openapi.json", "system.openapi"), ("/v1/openapi.json", "system.v1openapi"))
"""Where the OpenAPI document is served, and each route's name."""


def openapi_routes(build: Callable[[], JSONObject]) -> list[Route]:
    """`GET /openapi.json` and `/v1/openapi.json`, public like `/health`: the real CLI's
    `kindgi version` reads it without a token, and it holds no data.

    The document is generated from this app's endpoints on first ask.
    """
    built: list[bytes] = []

    async def document(call: Call[NoBody, NoQuery]) -> Response:
        if not built:
            built.append(dumps(build()))
        return Response(built[0], media_type="application/json")

    return [
        route(Endpoint("GET", path, name, document, "This API's OpenAPI document.", public=True))
        for path, name in OPENAPI_PATHS
    ]


ENDPOINTS = [
    Endpoint(
        "GET",
        "/health",
        "system.health",
        health,
        "The process answers.",
        response=HealthResult,
        public=True,
        errors=(),
    ),
    Endpoint(
        "GET",
        "/ready",
        "system.ready",
        ready,
        "The instance is ready to serve runs.",
        response=ReadyResult,
        public=True,
        errors=(503,),
    ),
]
