"""At `--log-level debug` (or trace), one line per request on stderr: method, path, status, ms.

What a client sent (a path, a header) is written with its control characters escaped, here
and in every log record (`PrintableFormatter`): a path with `%0a` can't forge a log line,
nor one with `%1b` send a terminal escape.
"""

from __future__ import annotations

import logging
import re
import sys
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LEVELS = frozenset({"debug", "trace"})

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
"""C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the backslash
(escaped too, so an escape in the log always means a character that was escaped)."""


def printable(text: str) -> str:
    """`text` with its control characters escaped as Python writes them (`\\n`, `\\x1b`)."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class PrintableFormatter(logging.Formatter):
    """A log record's message with its control characters escaped (a traceback keeps its
    lines: it is ours, not a client's)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message)
        return super().formatMessage(record)


def escape_log_records(logger: logging.Logger) -> None:
    """Have the logger's handlers (the root's: kindgi dev's stderr) write every record
    through `PrintableFormatter`."""
    for handler in logger.handlers:
        handler.setFormatter(PrintableFormatter(logging.BASIC_FORMAT))


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
            request = printable(f"{scope['method']} {scope['path']}")
            print(f"  ← {request} {status} {elapsed}ms", file=sys.stderr)
