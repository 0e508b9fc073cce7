"""An endpoint's declaration: its path, models and handler, typed so that mypy checks the
handler's `Call[Body, Query]` against the `body=` and `query=` it is declared with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypedDict, TypeVar, Unpack, overload

from pydantic import BaseModel
from starlette.requests import Request

from ..services.context import Context


class NoBody(BaseModel):
    """The body of an operation that takes none: its handler's `Call[NoBody, …]`."""


class NoQuery(BaseModel):
    """The query of an operation that takes none: its handler's `Call[…, NoQuery]`."""


B = TypeVar("B", bound=BaseModel, covariant=True)
Q = TypeVar("Q", bound=BaseModel, covariant=True)


@dataclass(frozen=True)
class Call(Generic[B, Q]):
    """One request as a handler sees it."""

    ctx: Context
    request: Request
    path: dict[str, str]
    body: B
    query: Q
    raw_body: bytes = b""


Handler = Callable[[Call[B, Q]], object]
"""An async handler runs on the event loop; a plain function (a write that may be long)
runs in a worker thread, so the loop keeps answering meanwhile, unless its endpoint's
`inline_below` lets a small body's write run on the loop (see `Endpoint`). What it returns
is a `Response`, or a value the endpoint's response model shapes."""


class Options(TypedDict, total=False):
    """An endpoint's settings beside its body and query (see `Endpoint`'s fields)."""

    response: type[BaseModel] | None
    status: int
    public: bool
    body_optional: bool
    errors: tuple[int, ...]
    also: tuple[int, ...]
    inline_below: int
    max_body: int | None
    keeps_refusals: bool


@dataclass(frozen=True, init=False)
class Endpoint(Generic[B, Q]):
    """One `/v1` operation: where it is, what it takes and answers, and its handler.

    Its handler's `Call[B, Q]` is checked against its `body=` and `query=` models (each
    `NoBody`/`NoQuery` when not given) by the overloads of `__init__`. It is covariant in
    both, so every endpoint is an `Endpoint[BaseModel, BaseModel]` in one list: the router
    calls a handler only with a `Call` parsed by its own endpoint's models.
    """

    method: str
    path: str
    operation_id: str
    handler: Handler[B, Q]
    summary: str
    body: type[B]
    query: type[Q]
    response: type[BaseModel] | None = None
    status: int = 200
    public: bool = False
    body_optional: bool = False
    errors: tuple[int, ...] = ()
    also: tuple[int, ...] = ()
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

    # fmt: off
    @overload
    def __init__(
        self: Endpoint[NoBody, NoQuery], method: str, path: str, operation_id: str,
        handler: Handler[NoBody, NoQuery], summary: str, **options: Unpack[Options],
    ) -> None: ...
    @overload
    def __init__(
        self: Endpoint[B, NoQuery], method: str, path: str, operation_id: str,
        handler: Handler[B, NoQuery], summary: str, *, body: type[B], **options: Unpack[Options],
    ) -> None: ...
    @overload
    def __init__(
        self: Endpoint[NoBody, Q], method: str, path: str, operation_id: str,
        handler: Handler[NoBody, Q], summary: str, *, query: type[Q], **options: Unpack[Options],
    ) -> None: ...
    @overload
    def __init__(
        self: Endpoint[B, Q], method: str, path: str, operation_id: str,
        handler: Handler[B, Q], summary: str, *, body: type[B], query: type[Q],
        **options: Unpack[Options],
    ) -> None: ...
    def __init__(
        self, method: str, path: str, operation_id: str,
        handler: (
            Handler[NoBody, NoQuery] | Handler[B, NoQuery] | Handler[NoBody, Q] | Handler[B, Q]
        ),
        summary: str, *, body: type[B] | None = None, query: type[Q] | None = None,
        **options: Unpack[Options],
    ) -> None:
        given = {"method": method, "path": path, "operation_id": operation_id,
                 "handler": handler, "summary": summary,
                 "body": body or NoBody, "query": query or NoQuery, **options}
        for name, value in given.items():
            object.__setattr__(self, name, value)
    # fmt: on

    @property
    def takes_body(self) -> bool:
        """Whether the operation reads a body (else any body sent is ignored)."""
        return self.body is not NoBody

    @property
    def takes_query(self) -> bool:
        """Whether the operation reads query parameters (else they are ignored)."""
        return self.query is not NoQuery


Operation = Endpoint[BaseModel, BaseModel]
"""An endpoint of whatever body and query (see `Endpoint`'s covariance): what a list of
them, the router and `/openapi.json` take."""
