"""Another Kindgi runtime's `/v1` test-set registry, for moving test sets between runtimes.

`kindgi dev` reads a version's cases from it to pull them; the CLI publishes a local
version to it. Its token is sent to its own URL only: no redirects are followed and no
proxy or `.netrc` from the environment is used, so nothing else ever sees it.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from .domain.json import JSON, JSONObject

if TYPE_CHECKING:
    import httpx

PAGE_SIZE = 100
MAX_BYTES = 64 * 1024 * 1024
"""How much case data one pull reads at most, so a remote can't fill the laptop's memory."""


class RemoteError(Exception):
    """The remote answered with an error (its envelope's code and message), or not at all."""

    def __init__(self, url: str, status: int, code: str, message: str) -> None:
        super().__init__(f"{url} answered {status} {code}: {message}" if status else message)
        self.url = url
        self.status = status
        self.code = code
        self.message = message


class UnsafeUrl(ValueError):
    """A remote URL that isn't `https://` (nor loopback), or isn't a URL at all."""


class BadToken(ValueError):
    """A remote's token that can't be sent in an `Authorization` header."""


@dataclass(frozen=True)
class Transfer:
    """How far a transfer got: cases moved, of how many (when known), and bytes."""

    cases: int
    total: int | None
    bytes: int


OnProgress = Callable[[Transfer], None]


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, insecure: bool = False) -> str:
    """The remote's base URL, trailing `/` dropped; `UnsafeUrl` for plain http elsewhere."""
    try:
        parts = urlsplit(url.strip())
        host, _ = parts.hostname, parts.port  # the port read to refuse one past 65535 now
    except ValueError as error:  # an unclosed `[` of an IPv6 host, a port that isn't one
        raise UnsafeUrl(f"{url!r} is not a URL: {error}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise UnsafeUrl(f"{url!r} is not an http(s) URL such as https://kindgi.example.com")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise UnsafeUrl(f"{url!r}: give the runtime's base URL, without query or credentials")
    if parts.scheme == "http" and not insecure and not _is_loopback(host):
        raise UnsafeUrl(
            f"{url} is plain http and not this machine: the token and the cases would travel "
            "unencrypted. Use https://, or pass --insecure if you mean it."
        )
    return url.strip().rstrip("/")


def check_token(token: str) -> str:
    """The token as sent: visible ASCII only, since it travels in a header; `BadToken` else."""
    if not token.isascii() or not token.isprintable() or " " in token:
        raise BadToken("a token is visible ASCII characters, without spaces or line breaks")
    return token


def _case_path(test_set_id: str, version: str, suite: bool) -> str:
    where = "eval-suites" if suite else "test-sets"
    return f"/v1/{where}/{quote(test_set_id, safe='')}/versions/{quote(version, safe='')}/cases"


class Remote:
    """One remote runtime, called with its own token (if any) and nothing else."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        insecure: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 60.0,
    ) -> None:
        import httpx  # here, not at kindgi dev's start: only a pull or a publish calls out

        self.url = check_url(url, insecure=insecure)
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {check_token(token)}"
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers=headers,
            timeout=timeout,
            follow_redirects=False,
            trust_env=False,
            transport=transport,
        )

    async def __aenter__(self) -> Remote:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self._client.aclose()

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[JSON, int, int]:
        """(JSON body, status, bytes) of a successful answer; `RemoteError` otherwise."""
        import httpx

        try:
            response = await self._client.request(
                method, path, params=params, content=content, headers=headers
            )
        except httpx.HTTPError as error:
            raise RemoteError(
                self.url, 0, "remote-unreachable", f"Couldn't reach {self.url}: {error!r}"
            ) from None
        body: JSON
        try:
            body = response.json()
        except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
            body = None
        if response.is_success and body is not None:
            return body, response.status_code, len(response.content)
        envelope = body.get("error") if isinstance(body, dict) else None
        if isinstance(envelope, dict):
            code = str(envelope.get("code") or "unknown")
            message = str(envelope.get("message") or f"Server error: {code}")
        elif response.is_redirect:
            code = "remote-redirected"
            where = response.headers.get("location", "elsewhere")
            message = f"It redirects to {where}; give that URL instead."
        else:
            code, message = "unknown", "an answer that isn't Kindgi's JSON"
        raise RemoteError(self.url, response.status_code, code, message)

    async def version_cases(
        self, test_set_id: str, version: str, on_progress: OnProgress | None = None
    ) -> list[JSON]:
        """Every case of a version, page by page: a test set's, else a suite built before's."""
        total = await self._total(test_set_id, version) if on_progress else None
        try:
            return await self._pages(_case_path(test_set_id, version, False), total, on_progress)
        except RemoteError as error:
            if error.status != 404:
                raise
            try:
                path = _case_path(test_set_id, version, True)
                return await self._pages(path, total, on_progress)
            except RemoteError as again:
                raise error if again.status == 404 else again from None

    async def _total(self, test_set_id: str, version: str) -> int | None:
        """How many cases a version has, when the remote's list of versions says; for
        progress only, so any failure here is no answer."""
        path = f"/v1/test-sets/{quote(test_set_id, safe='')}/versions"
        try:
            body, _, _ = await self._call("GET", path, params={"limit": PAGE_SIZE})
        except RemoteError:
            return None
        entries = body.get("data") if isinstance(body, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or entry.get("version") != version:
                continue
            spec = entry.get("spec")
            if not isinstance(spec, dict):
                continue
            count, cases = spec.get("caseCount"), spec.get("cases")
            if isinstance(count, int):
                return count
            if isinstance(cases, list):
                return len(cases)
        return None

    async def _pages(
        self, path: str, total: int | None, on_progress: OnProgress | None
    ) -> list[JSON]:
        cases: list[JSON] = []
        size = 0
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": PAGE_SIZE}
            if cursor:
                params["cursor"] = cursor
            body, _, length = await self._call("GET", path, params=params)
            size += length
            data = body.get("data") if isinstance(body, dict) else None
            if not isinstance(body, dict) or not isinstance(data, list):
                raise RemoteError(self.url, 200, "unknown", f"{path} answered no `data` list")
            if size > MAX_BYTES:
                raise RemoteError(
                    self.url, 200, "too-large", f"{path} has more than {MAX_BYTES} bytes of cases"
                )
            cases.extend(data)
            more = bool(body.get("hasMore")) and bool(body.get("nextCursor"))
            if on_progress is not None:
                known = total if total is not None and more else (None if more else len(cases))
                on_progress(Transfer(len(cases), known, size))
            if not more:
                return cases
            cursor = str(body["nextCursor"])

    async def tenant_id(self) -> str:
        """The workspace the remote token belongs to (its default project's tenant)."""
        body, _, _ = await self._call("GET", "/v1/projects/default")
        tenant = body.get("tenantId") if isinstance(body, dict) else None
        if not isinstance(tenant, str) or not tenant:
            raise RemoteError(self.url, 200, "unknown", "its default project names no tenantId")
        return tenant

    async def publish(
        self, entry: JSONObject, on_progress: OnProgress | None = None
    ) -> tuple[JSONObject, bool]:
        """`POST /v1/test-sets`: (the stored entry, whether it is new) by the remote's rules."""
        content = json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode()
        spec = entry.get("spec")
        listed = spec.get("cases") if isinstance(spec, dict) else None
        cases = len(listed) if isinstance(listed, list) else 0
        if on_progress is not None:
            on_progress(Transfer(0, cases, 0))
        body, status, _ = await self._call(
            "POST", "/v1/test-sets", content=content, headers={"Content-Type": "application/json"}
        )
        if on_progress is not None:
            on_progress(Transfer(cases, cases, len(content)))
        if not isinstance(body, dict):
            raise RemoteError(self.url, status, "unknown", "its stored entry isn't a JSON object")
        return body, status == 201
