"""The one ASGI layer in front of the routes: what every HTTP answer gets, in one pass.

It does what five layers did, in their order: the request's id (`errors.request_id`), the
`Host` check (`hosts`), whatever a route raised answered through the app's one error path,
the framing headers (`framing`), and at `--log-level debug` the request's log line
(`request_log`). One layer wraps `send` once: a short write's answer went through five
closures and five `await`s per message before (#29 point 2).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import framing, hosts, request_log
from .errors import request_id

ErrorAnswer = Callable[[Request, Exception], Awaitable[Response]]

_FRAMING_NAMES = frozenset(name for name, _ in framing.HEADERS)


def answer_headers(
    headers: list[tuple[bytes, bytes]], given_id: bytes
) -> list[tuple[bytes, bytes]]:
    """An answer's headers as every answer carries them: its own, then `X-Request-Id`, then
    the two that forbid framing (each replacing one the route set)."""
    kept = [(k, v) for k, v in headers if k != b"x-request-id" and k.lower() not in _FRAMING_NAMES]
    return [*kept, (b"x-request-id", given_id), *framing.HEADERS]


class Front:
    """The request's id, the `Host` check, error answers, framing headers and the log line."""

    def __init__(self, app: ASGIApp, served: str, answer_error: ErrorAnswer, log: bool) -> None:
        self.app = app
        self.host_check = hosts.HostCheck(served)
        self.answer_error = answer_error
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        given_id = request_id(scope)
        scope.setdefault("state", {})["request_id"] = given_id
        header_id = given_id.encode("latin-1")
        status = 500
        started = False

        async def answering(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = int(message["status"])
                message["headers"] = answer_headers(message.get("headers", []), header_id)
            await send(message)

        try:
            refusal = self.host_check.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, answering)
                return
            try:
                await self.app(scope, receive, answering)
            except Exception as exc:
                if started:
                    raise
                response = await self.answer_error(Request(scope, receive), exc)
                await response(scope, receive, answering)
        finally:
            if self.log:
                request_log.log_line(scope, status, began)
