"""What `kindgi dev` starts before it imports and builds its app, so the children's boots
overlap that work rather than follow it.

When no file of the pack changed since the last good index, that index is staged and its
pack service spawned at once: the start runs no indexing step. Otherwise the indexer is
spawned, and a thread spawns the pack service as soon as the indexer has written its index.
The runtime takes both over (`Runtime.start`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .pack import (
    INDEX_TIMEOUT_S,
    PackIndex,
    PackLoadFailed,
    cached_index,
    check_syntax,
    index_command,
    index_key,
    index_of,
    pack_python,
    read_outcome,
    remember,
    staging_path,
)
from .pack_child import Spawned, spawn


class Prestart:
    """The index (cached, or being made) and pack service `kindgi dev` started early."""

    def __init__(self, pack_dir: Path, token: str, env: Mapping[str, str], level: str) -> None:
        self.began = time.perf_counter()
        self.pack_dir = pack_dir.resolve()
        self.python = pack_python(self.pack_dir)
        self.cached = False
        self.took_s = 0.0
        """How long the index took to be known: staged from the cache, or made."""
        self.index: PackIndex | None = None
        self._service_args = (token, dict(env), level)
        self._key = index_key(self.pack_dir, self.python)
        self._report: dict[str, Any] = {}
        self._failure: Exception | None = None
        self._service: Spawned | None = None
        self._indexer: subprocess.Popen[bytes] | None = None
        self._known = threading.Event()
        """Set once the index (or why there is none) is known."""
        self._lock = threading.Lock()
        self._closed = False

    def begin(self) -> None:
        """Stage the cached index and spawn its service, or spawn the indexer and follow it."""
        staging = staging_path(self.pack_dir)
        staging.parent.mkdir(parents=True, exist_ok=True)
        cached = cached_index(self.pack_dir, self._key)
        if cached is not None:
            staging.write_text(json.dumps(cached["index"]), "utf-8")
            self.index, self.cached = index_of(cached["report"], staging), True
            self.took_s = time.perf_counter() - self.began
            self._known.set()
            self._spawn_service(self.index)
            return
        self._indexer = subprocess.Popen(
            index_command(self.pack_dir, self.python),
            cwd=self.pack_dir,
            env={**os.environ, **self._service_args[1]},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        threading.Thread(target=self._follow, name="prestart", daemon=True).start()

    def _follow(self) -> None:
        """In the thread: read the indexer's report, then spawn the service on its index."""
        try:
            service = self._index_and_serve()
        finally:
            self.took_s = time.perf_counter() - self.began
            self._known.set()
        if service is not None:
            # Linux sends the child its parent-death signal when the thread that started
            # it ends (PR_SET_PDEATHSIG), so this one lasts as long as the child.
            service.process.wait()

    def _index_and_serve(self) -> Spawned | None:
        assert self._indexer is not None
        try:
            out, err = self._indexer.communicate(timeout=INDEX_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._indexer.kill()
            self._indexer.wait()
            self._failure = PackLoadFailed(
                f"indexing took longer than {INDEX_TIMEOUT_S:.0f} s "
                "(does a module block on import?)",
                code="index-timeout",
            )
            return None
        try:
            text = (out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
            self._report = read_outcome(*text, self._indexer.returncode or 0, self.pack_dir)
            self.index = index_of(self._report, staging_path(self.pack_dir))
            return self._spawn_service(self.index)
        except Exception as error:  # handed to the runtime, which reports it
            self._failure = error
            return None

    def _spawn_service(self, index: PackIndex) -> Spawned | None:
        """The index's pack service, when it has tools or guardrails (and nothing closed us)."""
        if not (index.tools or index.guardrails):
            return None
        token, env, level = self._service_args
        with self._lock:
            if not self._closed:
                self._service = spawn(self.python, index.path, self.pack_dir, token, env, level)
            return self._service

    async def indexed(self, skip: Iterable[Path] = ()) -> PackIndex:
        """The index, once known: the cached one, or the indexer's once its files also passed
        the syntax check (a syntax error is the one reported, as `index_pack` reports it)."""
        if not self.cached:
            syntax, _ = await asyncio.gather(
                check_syntax(self.pack_dir, self.python, skip),
                asyncio.to_thread(self._known.wait),
                return_exceptions=True,
            )
            if isinstance(syntax, BaseException):
                self.close()
                raise syntax
        if self._failure is not None:
            self.close()
            raise self._failure
        assert self.index is not None
        if not self.cached:
            remember(self.pack_dir, self._key, self.index, self._report)
        return self.index

    def take_service(self) -> Spawned | None:
        """The pack service spawned early, once (None when none was)."""
        with self._lock:
            service, self._service = self._service, None
        return service

    def close(self) -> None:
        """Kill what was started early and not taken over (on a failed or aborted start)."""
        with self._lock:
            self._closed = True
            service, self._service = self._service, None
        for process in (self._indexer, service.process if service else None):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def prestart(pack_dir: Path, token: str, env: Mapping[str, str], level: str) -> Prestart:
    """Begin the index and pack service of the pack at `pack_dir` (see the module's doc)."""
    found = Prestart(pack_dir, token, env, level)
    found.begin()
    return found
