"""The pack service's HTTP client (`runtime.loopback_http`): one request written whole on a
connection of its own, the answer read to its end, and each way it can fail named.

Against a real asyncio server on a free loopback port: what it received is the request a
pack service reads (method, path, headers, `Connection: close`, the JSON body), and its
answers come back by `Content-Length`, chunked, or to the end of the connection.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from kindgi_dev.runtime.loopback_http import HttpAnswer, Unreachable, parse_answer, post_json

Reply = Callable[[bytes], bytes | None]


async def _served(reply: Reply, call: Callable[[int], Awaitable[object]]) -> tuple[object, bytes]:
    """Serve one connection with `reply(request bytes)` (None: never answer), and `call` it."""
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        request = head + await reader.readexactly(length)
        seen.append(request)
        answer = reply(request)
        if answer is None:
            await asyncio.sleep(5)
        else:
            writer.write(answer)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        result = await call(port)
    finally:
        server.close()
    return result, seen[0] if seen else b""


def _ok(body: bytes) -> Reply:
    return lambda request: b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


def test_the_request_is_one_json_post_that_closes_its_connection() -> None:
    body = {"v": 2, "kind": "invoke", "input": {"query": "réinitialiser"}}
    answer, request = asyncio.run(
        _served(
            _ok(b'{"kind":"result","output":[1]}'),
            lambda port: post_json(
                "127.0.0.1", port, "/v1/invoke", body, {"kindgi-protocol": "2"}, 5
            ),
        )
    )
    assert isinstance(answer, HttpAnswer)
    assert (answer.status, answer.json()) == (200, {"kind": "result", "output": [1]})
    head, _, sent = request.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/invoke HTTP/1.1"
    assert {"connection: close", "content-type: application/json", "kindgi-protocol: 2"} <= {
        line.lower() for line in lines[1:]
    }
    assert json.loads(sent) == body


def test_answers_by_length_chunked_or_to_the_end() -> None:
    by_length = parse_answer(b"HTTP/1.1 503 Busy\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}")
    assert (by_length.status, by_length.headers["retry-after"], by_length.body) == (503, "1", b"{}")
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked = parse_answer(head + b'4\r\n{"a"\r\n3;x=y\r\n:1}\r\n0\r\n\r\n')
    assert chunked.json() == {"a": 1}
    assert parse_answer(b"HTTP/1.0 500 Oops\r\n\r\nno length").text == "no length"


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"garbage\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\nshort",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2",
    ],
)
def test_a_cut_or_malformed_answer_is_unreachable(raw: bytes) -> None:
    with pytest.raises(Unreachable):
        parse_answer(raw)


def test_no_listener_is_unreachable() -> None:
    async def refused() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        await post_json("127.0.0.1", port, "/v1/invoke", {}, {}, 5)

    with pytest.raises(Unreachable, match="could not connect"):
        asyncio.run(refused())


def test_a_silent_service_times_out() -> None:
    with pytest.raises(TimeoutError):
        asyncio.run(
            _served(
                lambda request: None, lambda port: post_json("127.0.0.1", port, "/", {}, {}, 0.2)
            )
        )
