"""`kindgi dev`'s early start: the pack service (or the indexer) is spawned before the app is
imported, and the runtime takes over that very child (and starts another if it dies),
running no indexing step when no file changed; what it started is ended when the start
fails."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kindgi_dev.runtime import pack as pack_module
from kindgi_dev.runtime import prestart as prestart_module
from kindgi_dev.runtime.host import Runtime
from kindgi_dev.runtime.pack import PackIndex, PackLoadFailed, index_pack
from kindgi_dev.runtime.prestart import Prestart, prestart
from kindgi_dev.settings import Settings

TOKEN = "t" * 40
CALL = {"tenant_id": "tenant-1", "project_id": None, "run_id": "run-1", "request_id": "r1"}


def _no_indexing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any indexer child or syntax check from now on fails the test."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an indexing step ran on a warm start")

    monkeypatch.setattr(prestart_module, "index_command", refused)
    monkeypatch.setattr(prestart_module, "check_syntax", refused)
    monkeypatch.setattr(pack_module, "_run", refused)
    monkeypatch.setattr(pack_module, "check_syntax", refused)


def _services_of(pid: int) -> list[int]:
    """The `kindgi.pack serve` children of process `pid` now."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"kindgi.pack" in command and b"serve" in command:
            found.append(int(stat.parent.name))
    return found


async def _served(early: Prestart, pack: Path) -> tuple[Runtime, list[PackIndex]]:
    registered: list[PackIndex] = []

    def on_index(index: PackIndex) -> list[str]:
        registered.append(index)
        return []

    settings = Settings(pack_dir=pack, watch=False)
    runtime = Runtime(settings, on_index, TOKEN, lambda line: None, prestarted=early)
    await runtime.start()
    return runtime, registered


def test_a_warm_start_spawns_the_service_at_once_and_the_runtime_takes_it_over(
    make_pack: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack()
    asyncio.run(index_pack(pack, reuse=True))  # the cold start before: the index is cached
    _no_indexing(monkeypatch)
    early = prestart(pack, TOKEN, {}, "info")
    assert early.cached and early.index is not None
    spawned = _services_of(os.getpid())
    assert len(spawned) == 1  # before any event loop, app or runtime exists

    async def scenario() -> None:
        runtime, registered = await _served(early, pack)
        assert runtime.not_ready() is None
        assert [a["version"] for a in registered[0].agents] == ["1.0.0"]
        assert _services_of(os.getpid()) == spawned  # that child serves: no second one
        outcome = await runtime.invoke("demo.hello.greet", "1.0.0", {"name": "Cy"}, **CALL)
        assert outcome.ok and outcome.output["text"] == "Hello, Cy."
        first_port = runtime.pack_service_port()
        os.kill(spawned[0], signal.SIGKILL)  # the supervisor sees the taken-over child exit
        for _ in range(500):
            if runtime.pack_service_port() not in (None, first_port):
                break
            await asyncio.sleep(0.02)
        again = _services_of(os.getpid())
        assert len(again) == 1 and again != spawned
        outcome = await runtime.invoke("demo.hello.greet", "1.0.0", {"name": "Bo"}, **CALL)
        assert outcome.ok and outcome.output["text"] == "Hello, Bo."
        await runtime.stop()

    asyncio.run(scenario())
    assert _services_of(os.getpid()) == []
    assert (pack / ".kindgi" / "dev" / "index.json").is_file()


def test_a_cold_start_serves_the_indexers_index_from_a_service_spawned_meanwhile(
    make_pack: Callable[..., Path],
) -> None:
    """The thread that spawned the service outlives the indexer, so the child isn't sent its
    parent-death signal when the thread would have ended."""
    pack = make_pack()
    early = prestart(pack, TOKEN, {}, "info")
    assert not early.cached

    async def scenario() -> None:
        runtime, registered = await _served(early, pack)
        assert runtime.not_ready() is None and len(registered) == 1
        first = _services_of(os.getpid())
        assert len(first) == 1
        time.sleep(0.3)  # the indexer long gone
        outcome = await runtime.invoke("demo.hello.greet", "1.0.0", {"name": "Bo"}, **CALL)
        assert outcome.ok and outcome.output["text"] == "Hello, Bo."
        assert _services_of(os.getpid()) == first
        await runtime.stop()

    asyncio.run(scenario())
    assert _services_of(os.getpid()) == []
    early = prestart(pack, TOKEN, {}, "info")  # the index it made is kept for the next start
    early.close()
    assert early.cached


def test_a_syntax_error_on_a_cold_start_is_reported_and_its_early_service_ended(
    make_pack: Callable[..., Path],
) -> None:
    pack = make_pack()
    (pack / "tools" / "broken.py").write_text("def broken(:\n")
    early = prestart(pack, TOKEN, {}, "info")

    async def scenario() -> None:
        with pytest.raises(PackLoadFailed) as failed:
            await early.indexed()
        assert (failed.value.wire_code, failed.value.where) == (
            "syntax-error",
            "tools/broken.py:1:12",
        )
        assert early.take_service() is None

    asyncio.run(scenario())
    assert _services_of(os.getpid()) == []
