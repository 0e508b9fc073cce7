"""Endpoints: one declaration per operation, wrapped once with auth, body and idempotency.

Each resource module lists `Endpoint`s (see `endpoint`); `route()` turns one into a
Starlette route whose handler gets a `Call` (the parsed body and query, the path values,
the services' context) and returns the answer's body; what it raises is answered by the
app's one error path. The same declarations generate `/openapi.json`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any

from pydantic import BaseModel
from starlette._utils import get_route_path
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from ..domain.errors import BadInput, Conflict, KindgiError, RequestTooLarge, Unauthenticated
from ..domain.json import JSONObject
from ..domain.numbers import whole_number
from ..domain.paging import Page
from ..services import idempotency, identity
from ..services.context import Caller, Context, acting_as
from . import cursors, limits
from .endpoint import B, Call, Endpoint, Operation, Q
from .errors import from_error, log, request_id_of
from .responses import json_response
from .route_table import Declared
from .wire import parse, parse_body

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

SHORT_WRITE_BYTES = 8 * 1024
"""A write's body this small (a correction of a hundred items or so) is a write of a
millisecond or two: it runs on the event loop when no write is in flight, not in a worker
thread (an endpoint's `inline_below`)."""


def specificity(path: str) -> tuple[int, ...]:
    """A sort key for route templates: at the first place two differ, a fixed segment comes
    before a `{param}`, so `/v1/runs/failures` is tried before `/v1/runs/{runId}` takes it."""
    return tuple(1 if part.startswith("{") else 0 for part in path.split("/"))


def ordered(routes: list[Route]) -> list[Route]:
    """Routes in the order Starlette should try them (see `specificity`); stable otherwise."""
    return sorted(routes, key=lambda r: specificity(r.path))


class ExactFirstRouter(Router):
    """Starlette's router, a path without parameters found by one dict lookup: the patterns
    are tried in order only for the others (`POST /v1/corrections` was matched after 21
    patterns had failed). The table holds only what the patterns' walk picks itself."""

    def __init__(self, routes: list[BaseRoute], **options: Any) -> None:
        super().__init__(routes, **options)
        self.exact = exact_table(self.routes)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            found = self.exact.get((get_route_path(scope), scope["method"]))
            if found is not None:
                scope.setdefault("router", self)
                scope["endpoint"] = found.endpoint
                scope["path_params"] = dict(scope.get("path_params", {}))
                await found.handle(scope, receive, send)
                return
        await super().app(scope, receive, send)


def exact_table(routes: list[BaseRoute]) -> dict[tuple[str, str], Route]:
    """(path, method) → route, for each route without parameters, when the walk through
    `routes` Starlette does picks that very route for its path and method."""
    table: dict[tuple[str, str], Route] = {}
    for candidate in routes:
        if not isinstance(candidate, Route) or candidate.param_convertors:
            continue
        for method in candidate.methods or ():
            scope = {"type": "http", "path": candidate.path, "root_path": "", "method": method}
            if first_full_match(routes, scope) is candidate:
                table[(candidate.path, method)] = candidate
    return table


def first_full_match(routes: list[BaseRoute], scope: Scope) -> BaseRoute | None:
    """The route Starlette's router hands a request of `scope` to when one matches fully."""
    return next((r for r in routes if r.matches(scope)[0] == Match.FULL), None)


def route(endpoint: Endpoint[B, Q]) -> Route:
    """The Starlette route of an endpoint."""

    async def handle(request: Request) -> Response:
        """The answer; an error is raised to the app's one error path (`kindgi_dev.app`)."""
        ctx: Context = request.app.state.ctx
        caller = None if endpoint.public else _authenticate(request, ctx)
        with acting_as(caller or ctx.caller):
            limits.check_url(request.scope.get("raw_path") or b"", request.scope["query_string"])
            raw = await _read_body(
                request,
                endpoint.max_body or ctx.settings.max_body_bytes,
                ctx.settings.body_idle_seconds,
            )
            key = request.headers.get("idempotency-key")
            if key is not None and request.method in WRITE_METHODS:
                if not key.strip():
                    raise BadInput("The Idempotency-Key header is empty: give a key, or none.")
                return await _idempotent(ctx, request, endpoint, raw, key)
            return await _answer(ctx, request, endpoint, raw)

    return Route(
        endpoint.path, Answering(handle), methods=[endpoint.method], name=endpoint.operation_id
    )


def loaded_route(declared: Declared) -> Route:
    """The route of an endpoint kept in the route table: matched by its method and path,
    its module imported on its first request, then answered as `route` answers."""
    return Route(
        declared.path,
        Loading(declared),
        methods=[declared.method],
        name=declared.operation_id,
    )


def endpoint_of(declared: Declared) -> Operation:
    """The endpoint the route table names, from its module's declarations."""
    module = importlib.import_module(f"{__package__}.{declared.module}")
    declarations: list[Operation] = module.ENDPOINTS
    for endpoint in declarations:
        if (endpoint.method, endpoint.path) == (declared.method, declared.path):
            return endpoint
    raise LookupError(f"{declared.module} declares no {declared.method} {declared.path}")


class Loading:
    """A kept route's ASGI app: its endpoint's, made on the first request (see
    `route_table`). Nothing awaits between the check and the import, so two requests on
    the event loop import it once."""

    def __init__(self, declared: Declared) -> None:
        self.declared = declared
        self.app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            self.app = route(endpoint_of(self.declared)).app
        await self.app(scope, receive, send)


class Answering:
    """A route's ASGI app: its handler's answer, sent. Starlette's `request_response` put
    an exception layer of its own around it, which handles nothing now: `Front` does."""

    def __init__(self, handle: Callable[[Request], Awaitable[Response]]) -> None:
        self.handle = handle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handle(Request(scope, receive, send))
        await response(scope, receive, send)


async def _answer(
    ctx: Context,
    request: Request,
    endpoint: Endpoint[B, Q],
    raw: bytes,
    keep: Callable[[Response], None] | None = None,
) -> Response:
    """Parse, handle, render. A plain-function handler does all three in a worker thread,
    so neither a large body nor a long write holds up the event loop; a body under the
    endpoint's `inline_below` is handled on the loop, unless a write is in flight (it is
    never waited for on the loop).

    A plain-function handler of a write method runs, and its answer is rendered, inside
    one write transaction: an answer that fails to render rolls its write back, so no
    request answers 500 after it stored something. `keep` is given the answer inside that
    transaction too (an Idempotency-Key's kept answer commits with the write or not at all)."""
    pages = pages_of(ctx, request)

    def call() -> Call[B, Q]:
        return Call(
            ctx=ctx,
            request=request,
            path=dict(request.path_params),
            body=_parse_body(endpoint, request, raw),
            query=_parse_query(endpoint, request, pages),
            raw_body=raw,
        )

    def finish(result: object) -> Response:
        if isinstance(result, Response):
            return result
        return json_response(signed(render(endpoint, result), pages), endpoint.status)

    handler = endpoint.handler
    if inspect.iscoroutinefunction(handler):
        answered = handler(call())
        return finish(await answered if inspect.isawaitable(answered) else answered)

    def handled() -> Response:
        given = call()
        if request.method not in WRITE_METHODS:
            return finish(handler(given))
        with ctx.db.transaction():
            try:
                answered = finish(handler(given))
            except KindgiError as error:
                if not endpoint.keeps_refusals or error.status >= 500:
                    raise  # a full disk or a failed write is no refusal: nothing is kept
                refusal = error
            else:
                if keep is not None:
                    keep(answered)
                return answered
        raise refusal

    if len(raw) < endpoint.inline_below:
        with ctx.writer_if_free() as free:
            if free:
                with ctx.db.leaving_commits() as pending:
                    written = _outcome(handled)
        if free:
            await pending.committed()  # requests handled meanwhile share its COMMIT
            return written.result()
    return await asyncio.to_thread(handled)


def _outcome(handled: Callable[[], Response]) -> Future[Response]:
    """What `handled` returned or raised, kept to be given once its writes are committed
    (a refusal that keeps its writes too)."""
    outcome: Future[Response] = Future()
    try:
        outcome.set_result(handled())
    except Exception as error:
        outcome.set_exception(error)
    return outcome


def pages_of(ctx: Context, request: Request) -> cursors.Signer:
    """The signer of the cursors of the list a request reads: the list is its path."""
    return cursors.signer(ctx.identity.token, request.scope["path"])


def signed(body: JSONObject, pages: cursors.Signer) -> JSONObject:
    """An answer with its page's `nextCursor` signed for its list (see `cursors`)."""
    cursor = body.get("nextCursor")
    if isinstance(cursor, str):
        return {**body, "nextCursor": pages.sign(cursor)}
    return body


def render(endpoint: Operation, result: object) -> JSONObject:
    """An answer's JSON, always through the endpoint's declared response model.

    A service's record (snake_case attributes, None for absent), a page of records, a dict
    or a model is shaped by the model into the contract's camelCase; fields the answer does
    not have stay absent.
    """
    if endpoint.response is None:
        raise TypeError(f"{endpoint.operation_id} answers JSON but declares no response model")
    return shape(endpoint.response, result)


def shape(model: type[BaseModel], result: object) -> JSONObject:
    """`result` as JSON through `model` (for a handler that picks its own status)."""
    if isinstance(result, BaseModel) and not isinstance(result, model):
        result = result.model_dump(exclude_unset=True)
    shaped = result if isinstance(result, model) else model.model_validate(plain(result))
    dumped: JSONObject = shaped.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return dumped


_LEAVES = frozenset({str, int, float, bool, type(None)})
"""Types `plain` gives back as they are: most of an answer's values, told by one lookup."""


def plain(value: object) -> object:
    """Records as dicts of their present (non-None) fields; a page as `data`/`has_more`."""
    if type(value) in _LEAVES:
        return value
    if isinstance(value, Page):
        page: dict[str, object] = {"data": [plain(item) for item in value.items]}
        page["has_more"] = value.has_more
        if value.has_more and value.next_cursor:
            page["next_cursor"] = value.next_cursor
        return page
    names = _record_fields(type(value))
    if names is not None:
        fields = [(name, getattr(value, name)) for name in names]
        return {name: plain(field) for name, field in fields if field is not None}
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return [plain(item) for item in value]
    return value


_FIELDS: dict[type, tuple[str, ...] | None] = {}
"""Each type's dataclass field names (None: not a dataclass), found once per type."""


def _record_fields(kind: type) -> tuple[str, ...] | None:
    """A dataclass's field names, or None for any other type: every answer walks its
    records with them, so they are looked up once per type."""
    if kind not in _FIELDS:
        names = dataclasses.fields(kind) if dataclasses.is_dataclass(kind) else None
        _FIELDS[kind] = None if names is None else tuple(f.name for f in names)
    return _FIELDS[kind]


def _authenticate(request: Request, ctx: Context) -> Caller:
    """Whom the request's bearer token acts for; 401 for a missing or unknown token."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        raise Unauthenticated("The Authorization header is required: Bearer <token>.")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("The Authorization header must be: Bearer <token>.")
    caller = identity.caller_of_token(ctx, token.strip())
    if caller is None:
        raise Unauthenticated("That token is not this kindgi dev's; see .kindgirc.json.")
    return caller


async def _read_body(request: Request, limit: int, idle_seconds: float) -> bytes:
    """The body, refused when larger than `limit` or stalled `idle_seconds` between chunks.

    A request framing no body (neither `Content-Length` nor `Transfer-Encoding`, as a GET
    sends, or a length of 0) has none (RFC 9112 6.3): it is not waited for, so a read
    doesn't arm the stall timer and its timeout for nothing."""
    headers = request.headers
    length = headers.get("content-length")
    if (length is None or length == "0") and "transfer-encoding" not in headers:
        return b""
    declared = whole_number(length or "")
    if declared is not None and declared > limit:
        raise RequestTooLarge(f"The body is larger than {limit} bytes.", maxBytes=limit)
    chunks = []
    size = 0
    try:
        async with asyncio.timeout(None) as idle:
            with _StallWatch(idle, idle_seconds) as watch:
                async for chunk in request.stream():
                    watch.arrived()
                    size += len(chunk)
                    if size > limit:
                        raise RequestTooLarge(
                            f"The body is larger than {limit} bytes.", maxBytes=limit
                        )
                    chunks.append(chunk)
    except TimeoutError:
        raise BadInput(
            f"The request body stalled: nothing arrived for {idle_seconds:g} s.",
            idleSeconds=idle_seconds,
        ) from None
    return b"".join(chunks)


class _StallWatch:
    """Ends the `idle` timeout once nothing arrived for `seconds`. A chunk only notes when it
    came; one timer re-arms itself for the time left (rescheduling the timeout at each chunk
    cancelled and pushed a timer twice a request)."""

    def __init__(self, idle: asyncio.Timeout, seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.idle = idle
        self.seconds = seconds
        self.last = self.loop.time()
        self.timer = self.loop.call_at(self.last + seconds, self._check)

    def __enter__(self) -> _StallWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()

    def arrived(self) -> None:
        """A chunk came now."""
        self.last = self.loop.time()

    def _check(self) -> None:
        due = self.last + self.seconds
        if self.loop.time() >= due:
            self.idle.reschedule(self.loop.time())  # expires at the loop's next turn
        else:
            self.timer = self.loop.call_at(due, self._check)


def _parse_body(endpoint: Endpoint[B, Q], request: Request, raw: bytes) -> B:
    """The body as the endpoint's model: JSON, checked before parsing, types matched strictly."""
    if not endpoint.takes_body:
        return endpoint.body()
    if not raw.strip():
        if endpoint.body_optional:
            return endpoint.body()
        raise BadInput("The request needs a JSON body.")
    limits.check_content_type(request.headers.get("content-type"))
    return parse_body(endpoint.body, raw)


def _parse_query(endpoint: Endpoint[B, Q], request: Request, pages: cursors.Signer) -> Q:
    """The query as the endpoint's model, its cursor unwrapped once its signature for this
    list holds."""
    if not endpoint.takes_query:
        return endpoint.query()
    data: dict[str, str | list[str]] = {}
    for name in request.query_params:
        values = request.query_params.getlist(name)
        data[name] = values if len(values) > 1 else values[0]
    query = parse(endpoint.query, data)
    limits.check_numbers(query.model_dump(by_alias=True))
    cursor = getattr(query, "cursor", None)
    if isinstance(cursor, str) and cursor:
        query = query.model_copy(update={"cursor": pages.verify(cursor)})
    return query


async def _idempotent(
    ctx: Context, request: Request, endpoint: Endpoint[B, Q], raw: bytes, key: str
) -> Response:
    """Same key and body → the stored answer; other body → 409; first still running → 409."""
    held = idempotency.claim(ctx, request.method, request.url.path, key, raw)
    if isinstance(held, idempotency.StoredAnswer):
        return Response(
            held.body,
            held.status,
            headers={"X-Idempotent-Replay": "true"},
            media_type=held.content_type or None,  # "": the first answer had none (a 204)
        )
    if held is None:
        error = Conflict(
            "A request with this Idempotency-Key is still running.",
            code="idempotency-key-in-flight",
        )
        response = from_error(error, request_id_of(request.scope))
        response.headers["Retry-After"] = "5"
        return response
    kept: list[Response] = []

    def keep(response: Response) -> None:
        """Keep a whole successful answer under the key, in the write's own transaction."""
        if response.status_code < 400 and not isinstance(response, StreamingResponse):
            _remember(ctx, held, response)
            kept.append(response)

    try:
        response = await _whole(await _answer(ctx, request, endpoint, raw, keep))
        if response.status_code < 400 and not kept:
            _remember_after(ctx, held, response)
    finally:
        idempotency.release(ctx, held)
    return response


def _remember(ctx: Context, held: idempotency.Claim, response: Response) -> None:
    """Keep an answer under its Idempotency-Key, to replay byte for byte."""
    content_type = response.headers.get("content-type", "")
    idempotency.remember(ctx, held, response.status_code, content_type, bytes(response.body))


def _remember_after(ctx: Context, held: idempotency.Claim, response: Response) -> None:
    """Keep the answer of a write that committed on its own (a coroutine handler's, or a
    streamed one): failing to keep it does not make the write's answer an error, since the
    write is stored; a retry with the key then runs again, as it would without one."""
    try:
        _remember(ctx, held, response)
    except KindgiError as error:
        log.warning("The answer under an Idempotency-Key was not kept: %s", error.message)


async def _whole(response: Response) -> Response:
    """A streamed answer read to its end, as one answer with the same status and headers:
    an answer kept under an Idempotency-Key is kept whole, to be replayed byte for byte."""
    if not isinstance(response, StreamingResponse):
        return response
    chunks = [
        chunk.encode(response.charset) if isinstance(chunk, str) else bytes(chunk)
        async for chunk in response.body_iterator
    ]
    return Response(
        b"".join(chunks),
        response.status_code,
        headers=dict(response.headers),
        background=response.background,
    )
