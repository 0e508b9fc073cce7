"""The end-to-end tests' servers: `dev_server(...)` starts a real `kindgi dev` on a fresh copy
of the committed example pack and stops it when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from devserver import DevServer, copy_example, start


@pytest.fixture
def dev_server(tmp_path: Path) -> Iterator[Callable[..., DevServer]]:
    """`dev_server(*args, folder="article-picker", timeout=30)`: `kindgi dev *args` serving a
    copy of the example in `tmp_path / folder`; every server it started is stopped after."""
    started: list[DevServer] = []

    def serve(*args: str, folder: str = "article-picker", timeout: float = 30.0) -> DevServer:
        server = start(copy_example(tmp_path / folder), *args, timeout=timeout)
        started.append(server)
        return server

    yield serve
    for server in started:
        server.stop()


@pytest.fixture
def server(dev_server: Callable[..., DevServer]) -> DevServer:
    """`kindgi dev` on a fresh copy of the example, for one test."""
    return dev_server()
