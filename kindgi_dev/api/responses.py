"""JSON answers: compact UTF-8 JSON, as the contract's clients read it."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping

from starlette.responses import Response

from ..domain.stored_values import clean_text

log = logging.getLogger("kindgi_dev.api")


def dumps(body: object) -> bytes:
    """Compact JSON bytes. JSON has no `NaN` or `Infinity` and UTF-8 no lone surrogate: a
    value holding one (stored before `m0029` repaired such values) is answered with null in
    its place, and U+FFFD, rather than failing the answer."""
    try:
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        log.warning("an answer held a non-finite number; it is answered as null")
        text = json.dumps(_finite(body), separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode()
    except UnicodeEncodeError:
        log.warning("an answer held a lone surrogate; it is answered as U+FFFD")
        return clean_text(text).encode()


def _finite(value: object) -> object:
    """`value` with each non-finite number replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def json_response(
    body: object, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON answer."""
    return Response(dumps(body), status, headers=dict(headers or {}), media_type="application/json")
