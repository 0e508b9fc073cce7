"""At `--log-level debug` (or trace), one line per request on stderr: method, path, status, ms."""

from __future__ import annotations

import sys
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LEVELS = frozenset({"debug", "trace"})


class RequestLogMiddleware:
    """`  ← GET /v1/runs 200 12ms` once each HTTP answer has been sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = round((time.perf_counter() - began) * 1000)
            print(f"  ← {scope['method']} {scope['path']} {status} {elapsed}ms", file=sys.stderr)
