"""How a pack service child is started: its command, its environment, its parent's death,
and how one started before the event loop ran is then watched from it (`Adopted`).

Shared by `kindgi dev`'s early start (`prestart.py`, before the app is imported) and the
supervisor (`pack_service.py`), so both start the very same child; light to import.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from .pack_log import LEVELS

HOST = "127.0.0.1"


def service_command(python: str, index_path: Path, module_root: Path) -> list[str]:
    """`python -m kindgi.pack serve` on `index_path`, on loopback."""
    command = [python, "-m", "kindgi.pack", "serve", "--index", str(index_path)]
    return [*command, "--module-root", str(module_root), "--host", HOST]


def child_env(token: str, env: Mapping[str, str], log_level: str) -> dict[str, str]:
    """Our environment and the pack's, plus what the service needs: token, any port, JSON."""
    return {
        **os.environ,
        **env,
        "PORT": "0",
        "KINDGI_PACK_SERVICE_TOKEN": token,
        "KINDGI_PACK_ENV_FILTER": "off",
        "KINDGI_PACK_ENV_CHECK": "warn",
        "KINDGI_LOG_FORMAT": "json",
        "KINDGI_LOG_LEVEL": log_level if log_level in LEVELS else "info",
    }


def die_with_parent() -> None:
    """In the child, before exec: on Linux, get SIGTERM when kindgi dev dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass(frozen=True)
class Spawned:
    """A pack service child started before the event loop ran, and when (`time.time()`)."""

    process: subprocess.Popen[bytes]
    at: float


def spawn(
    python: str, index_path: Path, module_root: Path, token: str, env: Mapping[str, str], level: str
) -> Spawned:
    """Start the child now, without an event loop; `PackService.start` takes it over."""
    at = time.time()
    process = subprocess.Popen(
        service_command(python, index_path, module_root),
        cwd=module_root,
        env=child_env(token, env, level),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    return Spawned(process, at)


class Child(Protocol):
    """A running pack service child: ours (asyncio's), or one `kindgi dev` started early."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def send_signal(self, signal: int) -> None: ...

    def kill(self) -> None: ...


class Adopted:
    """A child started with `subprocess.Popen` before the event loop ran, seen as a `Child`:
    its exit is awaited through a thread blocked in `wait()`, as asyncio's own child watcher
    waits on the children it starts."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = loop.create_future()

        def wait() -> None:
            code = process.wait()
            with contextlib.suppress(RuntimeError):  # the loop closed first
                loop.call_soon_threadsafe(_settle, self._exited, code)

        threading.Thread(target=wait, name=f"pack-service-{process.pid}", daemon=True).start()

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """Its exit code once it exited and was waited for, else None."""
        return self._exited.result() if self._exited.done() else None

    async def wait(self) -> int:
        """Its exit code, once it exits."""
        return await asyncio.shield(self._exited)

    def send_signal(self, signal: int) -> None:
        """Signal the child (nothing once it was waited for)."""
        if not self._exited.done():
            self._process.send_signal(signal)

    def kill(self) -> None:
        """SIGKILL the child (nothing once it was waited for)."""
        if not self._exited.done():
            self._process.kill()


def _settle(future: asyncio.Future[int], code: int) -> None:
    if not future.done():
        future.set_result(code)


async def reader(pipe: IO[bytes]) -> asyncio.StreamReader:
    """An asyncio stream over a pipe a `Popen` opened."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), pipe)
    return stream
