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

from starlette.types import Scope

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


def log_line(scope: Scope, status: int, began: float) -> None:
    """`  ← GET /v1/runs 200 12ms` on stderr once an HTTP answer was sent (`began` its
    `perf_counter`); what the client sent is escaped."""
    elapsed = round((time.perf_counter() - began) * 1000)
    request = printable(f"{scope['method']} {scope['path']}")
    print(f"  ← {request} {status} {elapsed}ms", file=sys.stderr)
