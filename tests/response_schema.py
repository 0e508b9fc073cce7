"""Every `/v1` answer a test gets is checked against its operation's declared response model."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
from starlette.routing import compile_path

from kindgi_dev.api.app import endpoints
from kindgi_dev.api.routing import Endpoint, specificity

ROUTES: list[tuple[str, re.Pattern[str], Endpoint]] = [
    (e.method, compile_path(e.path)[0], e)
    for e in sorted(endpoints(), key=lambda e: specificity(e.path))
]
"""In the order the app tries them: `/v1/runs/failures` before `/v1/runs/{runId}`."""


def endpoint_of(method: str, path: str) -> Endpoint | None:
    """The declared operation a request went to, if any."""
    for route_method, pattern, endpoint in ROUTES:
        if route_method == method and pattern.fullmatch(path):
            return endpoint
    return None


def check(response: httpx.Response) -> None:
    """A 2xx JSON answer of a `/v1` operation must validate as its response model."""
    request = response.request
    endpoint = endpoint_of(request.method, request.url.path)
    if endpoint is None or response.status_code >= 300:
        return
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    assert endpoint.response is not None, f"{endpoint.operation_id} declares no response model"
    endpoint.response.model_validate(response.json())


def checking(send: Callable[..., httpx.Response]) -> Callable[..., httpx.Response]:
    """Wrap a client's `request` so every answer is checked before the test sees it."""

    def request(self: Any, *args: Any, **kwargs: Any) -> httpx.Response:
        response = send(self, *args, **kwargs)
        check(response)
        return response

    return request
