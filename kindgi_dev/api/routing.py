"""Endpoints: one declaration per operation, wrapped once with auth, body and idempotency.

Each resource module lists `Endpoint`s; `route()` turns one into a Starlette route whose
handler gets a `Call` (the parsed body and query, the path values, the services' context)
and returns the answer's body; what it raises is answered by the app's one error path. The
same declarations generate `/openapi.json`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ..domain.errors import BadInput, Conflict, KindgiError, RequestTooLarge, Unauthenticated
from ..domain.numbers import whole_number
from ..domain.paging import Page
from ..services import idempotency, identity
from ..services.context import Caller, Context, acting_as
from . import cursors, limits
from .errors import from_error, request_id_of
from .responses import json_response
from .wire import parse, parse_body

B = TypeVar("B", bound=BaseModel)
Q = TypeVar("Q", bound=BaseModel)

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

SHORT_WRITE_BYTES = 8 * 1024
"""A write's body this small (a correction of a hundred items or so) is a write of a
millisecond or two: it runs on the event loop when no write is in flight, not in a worker
thread (an endpoint's `inline_below`)."""


@dataclass
class Call(Generic[B, Q]):
    """One request as a handler sees it."""

    ctx: Context
    request: Request
    path: dict[str, str]
    body: B
    query: Q
    raw_body: bytes = b""


Handler = Callable[[Call[Any, Any]], Awaitable[Any]] | Callable[[Call[Any, Any]], Any]
"""An async handler runs on the event loop; a plain function (a write that may be long)
runs in a worker thread, so the loop keeps answering meanwhile, unless its endpoint's
`inline_below` lets a small body's write run on the loop (see `Endpoint`)."""


@dataclass(frozen=True)
class Endpoint:
    """One `/v1` operation: where it is, what it takes and answers, and its handler."""

    method: str
    path: str
    operation_id: str
    handler: Handler
    summary: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    public: bool = False
    body_optional: bool = False
    errors: tuple[int, ...] = field(default=())
    also: tuple[int, ...] = field(default=())
    """Other success statuses answering the same model (e.g. 200 beside a 201 `status`)."""
    inline_below: int = 0
    """A plain-function handler whose body is smaller than this many bytes runs on the event
    loop when no write is in flight: a short write costs less there than a thread hop."""
    max_body: int | None = None
    """The largest body this operation takes, when not the instance's `max_body_bytes`
    (a test-set file carries a copy of each case's run)."""
    keeps_refusals: bool = False
    """A refusal this operation answers is recorded (a promotion its gate refused, kept in
    the history): what its handler wrote before raising is committed, not rolled back with
    the error answer as a write's are."""


class _Empty(BaseModel):
    """No query or body."""


def specificity(path: str) -> tuple[int, ...]:
    """A sort key for route templates: at the first place two differ, a fixed segment comes
    before a `{param}`, so `/v1/runs/failures` is tried before `/v1/runs/{runId}` takes it."""
    return tuple(1 if part.startswith("{") else 0 for part in path.split("/"))


def ordered(routes: list[Route]) -> list[Route]:
    """Routes in the order Starlette should try them (see `specificity`); stable otherwise."""
    return sorted(routes, key=lambda r: specificity(r.path))


def route(endpoint: Endpoint) -> Route:
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

    return Route(endpoint.path, handle, methods=[endpoint.method], name=endpoint.operation_id)


async def _answer(ctx: Context, request: Request, endpoint: Endpoint, raw: bytes) -> Response:
    """Parse, handle, render. A plain-function handler does all three in a worker thread,
    so neither a large body nor a long write holds up the event loop; a body under the
    endpoint's `inline_below` is handled on the loop, unless a write is in flight (it is
    never waited for on the loop).

    A plain-function handler of a write method runs, and its answer is rendered, inside
    one write transaction: an answer that fails to render rolls its write back, so no
    request answers 500 after it stored something."""
    pages = pages_of(ctx, request)

    def call() -> Call[Any, Any]:
        return Call(
            ctx=ctx,
            request=request,
            path=dict(request.path_params),
            body=_parse_body(endpoint, request, raw),
            query=_parse_query(endpoint, request, pages),
            raw_body=raw,
        )

    def finish(result: Any) -> Response:
        if isinstance(result, Response):
            return result
        return json_response(signed(render(endpoint, result), pages), endpoint.status)

    if inspect.iscoroutinefunction(endpoint.handler):
        return finish(await endpoint.handler(call()))
    handler = endpoint.handler

    def handled() -> Response:
        given = call()
        if request.method not in WRITE_METHODS:
            return finish(handler(given))
        with ctx.db.transaction():
            try:
                return finish(handler(given))
            except KindgiError as error:
                if not endpoint.keeps_refusals:
                    raise
                refusal = error
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


def signed(body: Any, pages: cursors.Signer) -> Any:
    """An answer with its page's `nextCursor` signed for its list (see `cursors`)."""
    if isinstance(body, dict) and isinstance(body.get("nextCursor"), str):
        return {**body, "nextCursor": pages.sign(body["nextCursor"])}
    return body


def render(endpoint: Endpoint, result: object) -> Any:
    """An answer's JSON, always through the endpoint's declared response model.

    A service's record (snake_case attributes, None for absent), a page of records, a dict
    or a model is shaped by the model into the contract's camelCase; fields the answer does
    not have stay absent.
    """
    if endpoint.response is None:
        raise TypeError(f"{endpoint.operation_id} answers JSON but declares no response model")
    return shape(endpoint.response, result)


def shape(model: type[BaseModel], result: object) -> Any:
    """`result` as JSON through `model` (for a handler that picks its own status)."""
    if isinstance(result, BaseModel) and not isinstance(result, model):
        result = result.model_dump(exclude_unset=True)
    shaped = result if isinstance(result, model) else model.model_validate(plain(result))
    return shaped.model_dump(by_alias=True, exclude_unset=True, mode="json")


def plain(value: object) -> object:
    """Records as dicts of their present (non-None) fields; a page as `data`/`has_more`."""
    if isinstance(value, Page):
        page: dict[str, object] = {"data": [plain(item) for item in value.items]}
        page["has_more"] = value.has_more
        if value.has_more and value.next_cursor:
            page["next_cursor"] = value.next_cursor
        return page
    names = _record_fields(type(value))
    if names is not None:
        present = ((name, getattr(value, name)) for name in names)
        return {name: plain(field) for name, field in present if field is not None}
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
    """The body, refused when larger than `limit` or stalled `idle_seconds` between chunks."""
    declared = whole_number(request.headers.get("content-length") or "")
    if declared is not None and declared > limit:
        raise RequestTooLarge(f"The body is larger than {limit} bytes.", maxBytes=limit)
    chunks = []
    size = 0
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(idle_seconds) as idle:
            async for chunk in request.stream():
                idle.reschedule(loop.time() + idle_seconds)
                size += len(chunk)
                if size > limit:
                    raise RequestTooLarge(f"The body is larger than {limit} bytes.", maxBytes=limit)
                chunks.append(chunk)
    except TimeoutError:
        raise BadInput(
            f"The request body stalled: nothing arrived for {idle_seconds:g} s.",
            idleSeconds=idle_seconds,
        ) from None
    return b"".join(chunks)


def _parse_body(endpoint: Endpoint, request: Request, raw: bytes) -> BaseModel:
    """The body as the endpoint's model: JSON, checked before parsing, types matched strictly."""
    if endpoint.body is None:
        return _Empty()
    if not raw.strip():
        if endpoint.body_optional:
            return endpoint.body()
        raise BadInput("The request needs a JSON body.")
    limits.check_content_type(request.headers.get("content-type"))
    return parse_body(endpoint.body, raw)


def _parse_query(endpoint: Endpoint, request: Request, pages: cursors.Signer) -> BaseModel:
    """The query as the endpoint's model, its cursor unwrapped once its signature for this
    list holds."""
    if endpoint.query is None:
        return _Empty()
    data: dict[str, Any] = {}
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
    ctx: Context, request: Request, endpoint: Endpoint, raw: bytes, key: str
) -> Response:
    """Same key and body → the stored answer; other body → 409; first still running → 409."""
    held = idempotency.claim(ctx, request.method, request.url.path, key, raw)
    if isinstance(held, idempotency.StoredAnswer):
        return Response(
            held.body,
            held.status,
            headers={"X-Idempotent-Replay": "true"},
            media_type=held.content_type,
        )
    if held is None:
        error = Conflict(
            "A request with this Idempotency-Key is still running.",
            code="idempotency-key-in-flight",
        )
        response = from_error(error, request_id_of(request.scope))
        response.headers["Retry-After"] = "5"
        return response
    try:
        response = await _whole(await _answer(ctx, request, endpoint, raw))
        if response.status_code < 400:
            content_type = response.headers.get("content-type", "application/json")
            idempotency.remember(
                ctx, held, response.status_code, content_type, bytes(response.body)
            )
    finally:
        idempotency.release(ctx, held)
    return response


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
