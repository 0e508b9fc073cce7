"""uvicorn's HTTP protocol with an answer's head and body sent in one write.

uvicorn writes the head when the answer starts and the body when it comes, so a short
answer cost two `send` calls and two wake-ups of the client: under `wrk` they were a fifth
of the event loop's time a correction (#29 point 2). Here what a connection writes in one
turn of the loop is sent together at the end of that turn.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class GatheredWrites(asyncio.Transport):
    """A connection's transport whose writes of one turn of the loop go out as one."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.transport = transport
        self.loop = loop
        self.held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Hold `data` until the loop's turn ends (a close sends it first)."""
        if not self.held:
            self.loop.call_soon(self.flush)
        self.held.append(bytes(data))

    def flush(self) -> None:
        """Send what was held, in one write."""
        if not self.held:
            return
        data = self.held[0] if len(self.held) == 1 else b"".join(self.held)
        self.held = []
        if not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        """Send what was held, then close once it is out."""
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        """Close at once, dropping what was held."""
        self.held = []
        self.transport.abort()

    def is_closing(self) -> bool:
        """Whether the connection is closing or closed."""
        return self.transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The connection's details (its socket, its peer)."""
        return self.transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        """Stop reading requests (uvicorn's flow control)."""
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Read requests again."""
        self.transport.resume_reading()

    def is_reading(self) -> bool:
        """Whether requests are being read."""
        return self.transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Hand the connection to another protocol."""
        self.flush()
        self.transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The connection's protocol."""
        return self.transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        """Bytes not sent yet: held here, then in the transport's buffer."""
        return sum(map(len, self.held)) + self.transport.get_write_buffer_size()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """The transport's flow-control limits."""
        self.transport.set_write_buffer_limits(high, low)


class GatheringHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol on `GatheredWrites`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(GatheredWrites(transport, self.loop))
