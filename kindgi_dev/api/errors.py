"""Errors as the API answers them: any exception as one of ours (`error_of`), in the
contract's envelope `{"error": {code, message, requestId, details?}}`."""

from __future__ import annotations

import logging

from pydantic.alias_generators import to_camel
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Scope

from ..domain.errors import BadInput, KindgiError, MethodNotAllowed, NoRoute
from ..domain.json import JSON, JSONObject
from ..ids import new_ids
from .request_log import printable
from .responses import json_response

log = logging.getLogger("kindgi_dev.api")


_FRESH_IDS: list[str] = []
"""Request ids made ahead, from one read of the OS's randomness for 256 (see `new_ids`):
`uuid4` reads it once an id, a system call on every request."""


def new_request_id() -> str:
    """`req-<uuid4>`, the id of a request that came without its own."""
    try:
        return _FRESH_IDS.pop()
    except IndexError:
        _FRESH_IDS.extend("req-" + made for made in new_ids(256))
        return _FRESH_IDS.pop()


def request_id_of(scope: Scope) -> str:
    """The request's id (set by `front.Front`)."""
    return str(scope.get("state", {}).get("request_id") or new_request_id())


def envelope(
    status: int, code: str, message: str, request_id: str, details: JSONObject | None = None
) -> Response:
    """An error answer in the contract's envelope, with `X-Request-Id`."""
    error: JSONObject = {"code": code, "message": message, "requestId": request_id}
    if details:
        error["details"] = details
    return json_response({"error": error}, status, headers={"X-Request-Id": request_id})


def wire_details(error: KindgiError) -> JSONObject:
    """An error's details as the envelope names them: its snake_case keys in camelCase."""
    return {to_camel(key): _json(value) for key, value in error.details.items()}


def _json(value: object) -> JSON:
    """A detail as JSON: a tuple as a list, a mapping's keys as text, anything else as its
    text (details are values the raiser named, so this is only ever a shape's change)."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    return str(value)


def from_error(error: KindgiError, request_id: str) -> Response:
    """The envelope of one of our errors."""
    return envelope(error.status, error.wire_code, error.message, request_id, wire_details(error))


def error_of(request: Request, exc: Exception) -> KindgiError:
    """Any exception a request ended with, as one of our errors: ours as raised, Starlette's
    refusal of a path or a method as ours, anything else the 500, logged under the request's
    id (its message names the id; no stack trace leaves the process)."""
    if isinstance(exc, KindgiError):
        return exc
    if isinstance(exc, HTTPException) and exc.status_code == 404:
        return NoRoute(f"No route {request.method} {request.url.path}.")
    if isinstance(exc, HTTPException) and exc.status_code == 405:
        return MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}.")
    if isinstance(exc, HTTPException):
        return BadInput(str(exc.detail))
    request_id = request_id_of(request.scope)
    log.error("unexpected error on %s", request_id, exc_info=exc)
    return KindgiError(
        f"kindgi dev failed on this request; its log has the details under {request_id}."
    )


def headers_of(request: Request, exc: Exception) -> dict[str, str]:
    """The headers an error answer carries beside its body: Starlette's own, and `Allow`
    on a 405."""
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
    if isinstance(exc, HTTPException) and exc.status_code == 405:
        headers["Allow"] = allowed_methods(request)
    return headers


def allowed_methods(request: Request) -> str:
    """The methods served at a request's path, as `Allow` lists them: those of its most
    specific routes (fewest parameters), as a client reads the path. Starlette names the
    first route that matched only, so `/v1/corrections` said `POST` without its `GET`, and
    `…/versions/from-judgments` said `GET` (of `…/versions/{version}`) for its `POST`."""
    path = request.scope["path"]
    matching = [
        (route.path.count("{"), route.methods)
        for route in request.app.routes
        if isinstance(route, Route) and route.methods and route.path_regex.match(path)
    ]
    fewest = min((params for params, _ in matching), default=0)
    methods = {m for params, served in matching if params == fewest for m in served or ()}
    return ", ".join(sorted(methods))


def request_id(scope: Scope) -> str:
    """A request's id: the caller's `X-Request-Id`, else `req-<uuid4>` (`front.Front` keeps
    it in the scope and echoes it).

    The caller's id is logged with an unexpected error, so its control characters are
    escaped (`request_log.printable`)."""
    given = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode("latin-1")
    return printable(given.strip()[:200]) or new_request_id()
