"""JSON answers: compact UTF-8 JSON, as the contract's clients read it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response


def dumps(body: Any) -> bytes:
    """Compact JSON bytes; a non-finite number is refused, as JSON has none."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def json_response(
    body: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON answer."""
    return Response(dumps(body), status, headers=dict(headers or {}), media_type="application/json")
