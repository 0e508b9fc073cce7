"""The stall check of a request body (#29 point 2: one timer a request, re-armed for the time
left, not a timeout rescheduled at every chunk): a body that keeps coming, a piece each
0.15 s, is read whole though it takes longer than the 0.3 s a stall may last; one that
stops after a few pieces is refused as stalled, and nothing is written. A request that
frames no body is not waited for; a chunked one without a length is read."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import httpx
from serving import serve_app
from starlette.requests import Request
from tables import every_row

from kindgi_dev.api.routing import _read_body
from kindgi_dev.app import create_app
from kindgi_dev.settings import Settings

BODY = b'{"name":"trickled project","slug":"trickled"}'


def _post_in_pieces(url: str, token: str, pieces: list[bytes], pause_s: float) -> bytes:
    """POST `/v1/projects` whose body's pieces are sent `pause_s` apart; the raw answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"POST /v1/projects HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(BODY)}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        for piece in pieces:
            time.sleep(pause_s)
            sock.sendall(piece)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_a_body_that_keeps_coming_is_read_and_one_that_stops_is_refused(tmp_path: Path) -> None:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, body_idle_seconds=0.3))
    ctx = app.state.ctx
    pieces = [BODY[i : i + 8] for i in range(0, len(BODY), 8)]  # 6 pieces: 0.9 s in all
    with serve_app(app) as url:
        began = time.monotonic()
        made = _post_in_pieces(url, ctx.identity.token, pieces, 0.15)
        took = time.monotonic() - began
        before = every_row(Path(ctx.db.path))
        stopped = _post_in_pieces(url, ctx.identity.token, pieces[:3], 0.05)
        assert every_row(Path(ctx.db.path)) == before
    head, _, body = made.partition(b"\r\n\r\n")
    assert took > 0.75
    assert head.startswith(b"HTTP/1.1 201 "), made
    made_id = json.loads(body)["id"]
    assert any(made_id in row and "trickled" in row for row in before["projects"])
    head, _, body = stopped.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), stopped
    error = json.loads(body)["error"]
    assert (error["code"], error["details"]) == ("bad-input", {"idleSeconds": 0.3})
    assert "stalled" in error["message"]


def test_a_request_framing_no_body_is_not_waited_for() -> None:
    """No `Content-Length` and no `Transfer-Encoding` (a GET), or a length of 0: the body is
    empty without a read, so no stall timer is armed for it."""

    async def never(*_: object) -> dict[str, object]:
        raise AssertionError("the body of a request that frames none was waited for")

    def read(headers: list[tuple[bytes, bytes]]) -> bytes:
        scope = {"type": "http", "method": "GET", "headers": headers}
        return asyncio.run(_read_body(Request(scope, never), 1024, 0.3))

    assert read([(b"host", b"127.0.0.1")]) == b""
    assert read([(b"content-length", b"0")]) == b""


def test_a_chunked_body_without_a_length_is_read(tmp_path: Path) -> None:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False))
    token = app.state.ctx.identity.token
    with serve_app(app) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                f"POST /v1/projects HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                "Connection: close\r\n\r\n".encode()
                + f"{len(BODY):x}\r\n".encode() + BODY + b"\r\n0\r\n\r\n"
            )  # fmt: skip
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 201 "), answer
        made = httpx.get(
            f"{url}/v1/projects/{json.loads(body)['id']}",
            headers={"Authorization": f"Bearer {token}"},
        )
    assert made.json()["name"] == "trickled project"
