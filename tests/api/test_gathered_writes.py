"""An answer's head and body go out in one write; a streamed answer still goes out as it
comes (`api/serving.py`)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from kindgi_dev.api.serving import GatheredWrites, GatheringHttp


class Recorded(asyncio.Transport):
    """A transport that keeps what it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def test_writes_of_one_turn_are_sent_as_one() -> None:
    async def scenario() -> tuple[list[bytes], list[bytes]]:
        recorded = Recorded()
        gathered = GatheredWrites(recorded, asyncio.get_running_loop())
        gathered.write(b"HTTP/1.1 201 Created\r\n\r\n")
        gathered.write(b'{"id":"c"}')
        before = list(recorded.writes)
        await asyncio.sleep(0)
        return before, recorded.writes

    before, after = asyncio.run(scenario())
    assert before == []
    assert after == [b'HTTP/1.1 201 Created\r\n\r\n{"id":"c"}']


def test_a_close_sends_what_was_held_first() -> None:
    async def scenario() -> Recorded:
        recorded = Recorded()
        gathered = GatheredWrites(recorded, asyncio.get_running_loop())
        gathered.write(b"last")
        gathered.close()
        await asyncio.sleep(0)
        return recorded

    recorded = asyncio.run(scenario())
    assert recorded.writes == [b"last"]
    assert recorded.closed


async def streamed(scope: Any, receive: Any, send: Any) -> None:
    """An answer in two parts, the second a while after the first."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"first\n", "more_body": True})
    await asyncio.sleep(0.5)
    await send({"type": "http.response.body", "body": b"second\n", "more_body": False})


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """`app` on a loopback port through `GatheringHttp`."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=GatheringHttp, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_streamed_answer_goes_out_as_it_comes() -> None:
    with serving(streamed) as port, socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        conn.settimeout(0.4)
        early = conn.recv(65536)
        conn.settimeout(5)
        rest = b""
        while chunk := conn.recv(65536):
            rest += chunk
    assert early.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"first\n" in early and b"second" not in early
    assert b"second\n" in rest
