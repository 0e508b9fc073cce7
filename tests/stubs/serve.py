"""Serve a small Starlette app on a free loopback port in a thread, for stub servers in tests."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse


@dataclass
class Scripted:
    """One answer a stub gives: a JSON body, its status and headers, and how long to wait first."""

    body: Any
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] | None = None


@dataclass
class Received:
    """One request a stub got."""

    path: str
    headers: dict[str, str]
    json: Any
    at: float = field(default_factory=time.monotonic)


@dataclass
class ScriptedServer:
    """A stub that answers its queue of scripted replies in order and records each request."""

    replies: deque[Scripted] = field(default_factory=deque)
    requests: list[Received] = field(default_factory=list)
    url: str = ""
    in_flight: int = 0
    most_in_flight: int = 0
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    def queue(
        self,
        body: Any,
        status: int = 200,
        delay_s: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer a later request with `body`."""
        self.replies.append(Scripted(body, status, delay_s, headers))

    async def answer(self, request: Request) -> JSONResponse:
        """Record the request and give the next scripted reply (500 when none is left)."""
        self.requests.append(
            Received(request.url.path, dict(request.headers), await request.json())
        )
        if not self.replies:
            return JSONResponse({"error": {"message": "stub: no reply queued"}}, status_code=500)
        scripted = self.replies.popleft()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if scripted.delay_s:
                await asyncio.sleep(scripted.delay_s)
        finally:
            self.in_flight -= 1
        return JSONResponse(scripted.body, status_code=scripted.status, headers=scripted.headers)

    def start(self, app: Starlette) -> None:
        """Serve `app` on 127.0.0.1 and a free port; `url` is set once it listens."""
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the stub server did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._server.force_exit = True
            self._thread.join(timeout=10)
