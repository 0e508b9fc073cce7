"""What a request body may be before it is parsed: JSON in UTF-8, not too deep, numbers in range.

Checked once for every endpoint, so no handler sees a value the store or the encoder
can't hold: nesting that would exhaust the parser's stack, numbers beyond SQLite's 64-bit
integers (`1e23` as well as `100000000000000000000000`), or the non-JSON `Infinity` and
`NaN`. The bounds are `domain.bounds`', which the domain checks of every write share.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import NoReturn
from urllib.parse import unquote_to_bytes

from ..domain.bounds import MAX_DEPTH, MAX_NUMBER, MIN_NUMBER
from ..domain.errors import BadInput
from ..domain.json import JSON

MAX_ITEMS = 20_000
"""Items one correction (or hand case) may carry: a page of search results is far fewer."""

MAX_KEY = 500
"""Characters in an item's key or pointer, a tool id, a slug."""

MAX_NAME = 200
"""Characters in a name."""

_BRACKETS = re.compile(rb"[\[\]{}]")
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""Where a body may hold a lone surrogate: only JSON's `\\u` escapes can write one."""
_JSON_TYPES = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
_MAYBE_WIDE = re.compile(rb"\d[eE]|\d{19}")
"""Where a number outside the body's strings may be non-finite or beyond 64 bits: only one
with an exponent or 19 digits in a row can be (2**63 has 19), so without either the walk of
`check_numbers` is skipped."""


def check_content_type(header: str | None) -> None:
    """A body must be `application/json` (UTF-8, the only charset JSON allows on the wire)."""
    media, _, params = (header or "").partition(";")
    if not _JSON_TYPES.match(media.strip().lower()):
        raise BadInput(
            f"Content-Type must be application/json, not {header or 'missing'}.",
            contentType=header or None,
        )
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            raise BadInput("A JSON body must be UTF-8.", contentType=header, charset=value.strip())


def check_url(raw_path: bytes, query: bytes) -> None:
    """400 when the path or the query string, percent-decoded, is not UTF-8 (such as the
    bytes of a lone surrogate, `%ED%A0%80`): decoded anyway, it would name other text."""
    for part, text in (("path", raw_path), ("query string", query)):
        try:
            unquote_to_bytes(text.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError as error:
            raise BadInput(
                f"The {part} is not UTF-8 once percent-decoded ({error.reason} at byte "
                f"{error.start}).",
                field=part,
            ) from None


def check_depth(raw: bytes, limit: int = MAX_DEPTH) -> None:
    """400 when arrays/objects nest deeper than `limit`; found without parsing the body."""
    _check_nesting(_outside_strings(raw), limit)


def _check_nesting(outside: bytes, limit: int) -> None:
    """`check_depth` on the body's text between its strings (`_outside_strings`)."""
    steps = (1 if b in b"[{" else -1 for b in _BRACKETS.findall(outside))
    if max(itertools.accumulate(steps, initial=0)) > limit:
        raise BadInput(f"The body nests deeper than {limit} levels.", maxDepth=limit)


def _outside_strings(raw: bytes) -> bytes:
    """The JSON text between its strings: once the escaped backslashes and quotes are gone,
    every other piece between quotes is outside a string.

    Each step is a short C call: one regex over a 1 MB body held the GIL 40-150 ms,
    pausing the event loop, and every read waiting on it, while a large body was parsed in a
    thread."""
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(unescaped.split(b'"')[::2])


def load(raw: bytes, at: str = "") -> JSON:
    """The body as JSON data, after the depth check; every number finite and within 64 bits.

    `at` is where this JSON sits in a body (a console field holding JSON), so a refused
    number is named by its place in the body."""
    outside = _outside_strings(raw)
    _check_nesting(outside, MAX_DEPTH)
    try:
        data: JSON = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInput(f"The body is not valid JSON: {error}.") from None
    if _MAYBE_WIDE.search(outside):
        check_numbers(data, at)
    if _ESCAPED_SURROGATE.search(raw):
        check_text(data, at)
    return data


def check_numbers(value: object, path: str = "") -> None:
    """400 naming the field when a number is non-finite or beyond 64 bits, however written."""
    if isinstance(value, bool):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"{path or '<body>'}: numbers must be finite.", field=path)
    if isinstance(value, int | float) and not MIN_NUMBER <= value <= MAX_NUMBER:
        kind = "integers" if isinstance(value, int) else "numbers"
        raise BadInput(f"{path or '<body>'}: {kind} must fit in 64 bits.", field=path)
    if isinstance(value, dict):
        for key, item in value.items():
            check_numbers(item, f"{path}/{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_numbers(item, f"{path}/{index}" if path else str(index))


def check_text(value: object, path: str = "") -> None:
    """400 naming the field when a string (or a key) holds a lone surrogate, such as
    `"\\ud800"`: valid JSON, but no Unicode text, so nothing can store or send it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(
                f"{path or '<body>'}: holds a lone surrogate (\\ud800-\\udfff); "
                "text must be Unicode.",
                field=path,
            ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, path)
            check_text(item, f"{path}/{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_text(item, f"{path}/{index}" if path else str(index))


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")
