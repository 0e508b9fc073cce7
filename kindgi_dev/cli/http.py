"""The CLI's HTTP client: one call per command, errors turned into the real CLI's lines."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from urllib.parse import quote

import httpx

from ..domain.json import JSON
from .config import Target

CONFLICT_TAGS = "conflict"

QueryValue = str | int | float | bool | Sequence[str] | None
"""A query parameter's value as a command gives it (None: left out)."""


def in_path(value: object) -> str:
    """A value as one segment of a request's path: every character that means something in a
    URL percent-encoded (`/`, `?`, `#`, `%`), and `.` or `..` too, which a URL would resolve."""
    encoded = quote(str(value), safe="")
    return encoded.replace(".", "%2E") if encoded in (".", "..") else encoded


class ApiError(Exception):
    """An API answer in the error envelope, or no answer at all."""

    def __init__(self, tag: str, message: str, status: int, body: JSON = None) -> None:
        super().__init__(message)
        self.tag = tag
        self.message = message
        self.status = status
        self.body = body


AUTH_CODES = frozenset(
    {"auth", "auth-missing", "auth-expired", "auth-revoked", "permission-denied",
     "role-exceeds-principal", "key-project-mismatch", "identity-providers-operator-managed"}
)  # fmt: skip
RATE_CODES = frozenset({"rate-limited", "rate-limit-exceeded", "invite-capped"})
INVALID_CODES = frozenset(
    {"provider-config-invalid", "provider-key-refused", "supervisor-header-missing",
     "scope-invalid", "artifact-too-large"}
)  # fmt: skip


def tag_of(status: int, code: str) -> str:
    """The tag `Error [<tag>]` shows, by the real CLI's rules: a few codes by name, then by
    status (a 400 `item-not-found` is `invalid-request`, as there), a conflict by its code,
    any other status by the server's code."""
    if code in AUTH_CODES:
        return "auth"
    if code in RATE_CODES:
        return "rate-limited"
    if code in INVALID_CODES:
        return "invalid-request"
    if code == "guardrail-violation":
        return code
    by_status = {
        404: "not-found",
        410: "not-found",
        400: "invalid-request",
        413: "invalid-request",
        401: "auth",
        403: "auth",
        429: "rate-limited",
    }
    if status in by_status:
        return by_status[status]
    if status == 409:
        return code or "conflict"
    return code if code and code != "unknown" else "server"


class Api:
    """Calls the `/v1` API with the target's token. The target may be given as a function,
    resolved at the first call: a command's usage errors come before a missing URL."""

    def __init__(self, target: Target | Callable[[], Target], timeout: float = 30.0) -> None:
        self._target = target
        self._timeout = timeout
        self._made: httpx.Client | None = None

    @property
    def target(self) -> Target:
        """Where the calls go, and with which token."""
        if not isinstance(self._target, Target):
            self._target = self._target()
        return self._target

    @property
    def _client(self) -> httpx.Client:
        if self._made is None:
            target = self.target
            self._made = httpx.Client(
                base_url=target.url,
                timeout=self._timeout,
                headers={"Authorization": f"Bearer {target.token}", "Accept": "application/json"},
            )
        return self._made

    def call(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: Mapping[str, QueryValue] | None = None,
        idempotent: bool = False,
        idempotency_key: str | None = None,
    ) -> JSON:
        """One request; the answer's JSON, or `ApiError`. A given key replays its first answer."""
        key = idempotency_key or (str(uuid.uuid4()) if idempotent else None)
        headers = {"Idempotency-Key": key} if key else {}
        query = {k: _query_value(v) for k, v in (params or {}).items() if v is not None}
        with self._reaching():
            response = self._client.request(method, path, json=json, params=query, headers=headers)
        self._checked(response)
        return _json(response)

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        """A request's failure to reach the server as an `ApiError`: no answer in time,
        nothing listening, or any other transport failure."""
        try:
            yield
        except httpx.TimeoutException:
            raise ApiError("network", "no answer within 30 s", 0) from None
        except httpx.ConnectError as error:
            raise self.not_running(error) from None
        except httpx.HTTPError as error:
            raise ApiError("network", f"fetch failed ({error})", 0) from None

    def _checked(self, response: httpx.Response) -> None:
        """An error answer (streamed or not) as its envelope's `ApiError`; nothing for
        a success."""
        if not response.is_success:
            response.read()
            raise self.explained(error_of(response.status_code, _json(response)))

    def not_running(self, error: httpx.ConnectError) -> ApiError:
        """Nothing listens: for `.kindgirc.json`'s address, that `kindgi dev` isn't running."""
        if self.target.from_rc:
            return ApiError(
                "network",
                f"kindgi dev isn't running at {self.target.url} (from .kindgirc.json): "
                "start it with kindgi dev",
                0,
            )
        return ApiError("network", f"fetch failed ({error})", 0)

    def explained(self, error: ApiError) -> ApiError:
        """A refused token that came from `KINDGI_API_TOKEN` over a file's: say so."""
        if error.status == 401 and self.target.overridden is not None:
            error.message += (
                f" (the token came from KINDGI_API_TOKEN, which overrode {self.target.overridden}:"
                " unset it to use this instance's token)"
            )
        return error

    def lines(self, method: str, path: str, *, json: object = None) -> Iterator[JSON]:
        """A streamed answer's JSON lines (`application/x-ndjson`) as they come; `ApiError`."""
        headers = {"Accept": "application/x-ndjson"}
        with self._reaching(), self._client.stream(method, path, json=json, headers=headers) as r:
            self._checked(r)
            for line in r.iter_lines():
                if line.strip():
                    yield _loads(line)

    def download(self, path: str) -> Iterator[bytes]:
        """A streamed answer's bytes as they come (`ApiError` for an error answer)."""
        with self._reaching(), self._client.stream("GET", path, timeout=None) as response:
            self._checked(response)
            yield from response.iter_bytes()

    def upload(
        self, path: str, chunks: Iterable[bytes], *, size: int, params: Mapping[str, QueryValue]
    ) -> JSON:
        """POST a JSON body sent a chunk at a time; the answer's JSON, or `ApiError`."""
        headers = {"Content-Type": "application/json", "Content-Length": str(size)}
        with self._reaching():
            response = self._client.post(
                path, content=chunks, params=params, headers=headers, timeout=None
            )
        self._checked(response)
        return _json(response)

    def events(self, path: str) -> list[JSON]:
        """A server-sent event stream's `data:` payloads, collected until the server ends it."""
        headers = {"Accept": "text/event-stream"}
        collected: list[JSON] = []
        with self._reaching(), self._client.stream("GET", path, headers=headers, timeout=None) as r:
            self._checked(r)
            for line in r.iter_lines():
                if line.startswith("data:"):
                    collected.append(_loads(line[5:].strip()))
        return collected

    def close(self) -> None:
        """Close the connection pool (if a call opened it)."""
        if self._made is not None:
            self._made.close()


def error_of(status: int, body: JSON) -> ApiError:
    """The `ApiError` of an error answer: its envelope's code and message."""
    envelope = body.get("error") if isinstance(body, dict) else None
    if not isinstance(envelope, dict):
        return ApiError(
            "server", f"HTTP {status} without recognizable error envelope", status, body
        )
    code = str(envelope.get("code") or "unknown")
    message = str(envelope.get("message") or f"Server error: {code}")
    return ApiError(tag_of(status, code), message, status, body)


def _loads(line: str) -> JSON:
    try:
        loaded: JSON = json.loads(line)
        return loaded
    except ValueError:
        raise ApiError("server", f"a streamed line that isn't JSON: {line[:80]!r}", 0) from None


def _query_value(value: QueryValue) -> str | int | float | Sequence[str] | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _json(response: httpx.Response) -> JSON:
    try:
        loaded: JSON = response.json()
        return loaded
    except ValueError:
        return None
