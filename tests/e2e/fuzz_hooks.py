"""A schemathesis check of ours: every error answer is in the contract's envelope."""

from __future__ import annotations

from typing import Any

import schemathesis


@schemathesis.check
def error_in_envelope(ctx: Any, response: Any, case: Any) -> None:
    """A 4xx/5xx body is `{"error": {code, message, requestId, details?}}`, nothing else."""
    if response.status_code < 400:
        return
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, f"not an envelope: {body!r}"
    error = body["error"]
    assert {"code", "message", "requestId"} <= set(error) <= {
        "code", "message", "requestId", "details"}, f"not an envelope: {body!r}"  # fmt: skip
    assert error["requestId"] == response.headers.get("x-request-id", [None])[0]
