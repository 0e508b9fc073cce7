"""One HTTP/1.1 POST of JSON to a process on this machine, on a connection of its own: the
pack service's calls.

httpx spent 1.2-1.6 ms of CPU on each such call (its pool, anyio's locks, h11's events, and
a failed `import sniffio` per request), more than the tool's own round trip; here the
request is one write and the answer is read to the end of its connection (it is sent with
`Connection: close`), about 0.25 ms (#29 point 2). A new connection per call, as before: the
SDK's server writes an answer's head and body apart without TCP_NODELAY, so a kept-alive
connection would wait for a delayed ACK.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass

from ..domain.json import JSON


class Unreachable(Exception):
    """The connection failed, broke, or carried no HTTP answer."""


@dataclass(frozen=True)
class HttpAnswer:
    """An HTTP answer: its status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> JSON:
        """The body as JSON; ValueError when it isn't."""
        data: JSON = json.loads(self.body)
        return data

    @property
    def text(self) -> str:
        """The body as text, undecodable bytes replaced."""
        return self.body.decode("utf-8", "replace")


async def post_json(
    host: str, port: int, path: str, body: JSON, headers: Mapping[str, str], timeout_s: float
) -> HttpAnswer:
    """POST `body` as JSON and read the whole answer; TimeoutError after `timeout_s` in all,
    `Unreachable` when the connection fails or the answer is not HTTP."""
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    content = payload.encode()
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(content)}\r\n{head}\r\n"
    ).encode("latin-1")
    async with asyncio.timeout(timeout_s):
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError as error:
            raise Unreachable(f"could not connect to {host}:{port}: {error}") from None
        try:
            writer.write(request + content)
            raw = await reader.read()
        except OSError as error:
            raise Unreachable(f"the connection to {host}:{port} broke: {error}") from None
        finally:
            writer.close()
    return parse_answer(raw)


def parse_answer(raw: bytes) -> HttpAnswer:
    """An HTTP/1.1 answer read to the end of its connection; `Unreachable` if it is cut or
    malformed. Its body is as long as `Content-Length` says, or de-chunked, or all the rest."""
    head, blank, rest = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    version, _, status_text = lines[0].partition(" ")
    status = status_text[:3]
    if not blank or not version.startswith("HTTP/1.") or not status.isdigit():
        raise Unreachable(f"not an HTTP answer: {raw[:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        return HttpAnswer(int(status), headers, _dechunked(rest))
    length = headers.get("content-length")
    if length is None:
        return HttpAnswer(int(status), headers, rest)
    if not length.isdigit() or len(rest) < int(length):
        raise Unreachable(f"the answer was cut off: {len(rest)} of {length} bytes")
    return HttpAnswer(int(status), headers, rest[: int(length)])


def _dechunked(rest: bytes) -> bytes:
    """A chunked body's bytes; `Unreachable` when a chunk is cut or its size unreadable."""
    parts: list[bytes] = []
    at = 0
    while True:
        line_end = rest.find(b"\r\n", at)
        size_text = rest[at:line_end].split(b";", 1)[0].strip() if line_end >= 0 else b""
        try:
            size = int(size_text, 16)
        except ValueError:
            raise Unreachable("a chunked answer was cut off or malformed") from None
        if size == 0:
            return b"".join(parts)
        start = line_end + 2
        if len(rest) < start + size:
            raise Unreachable("a chunked answer was cut off")
        parts.append(rest[start : start + size])
        at = start + size + 2
