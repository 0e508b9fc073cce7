"""The SDK's pack service as our child: invoke a tool, errors, restart after a crash, reloads."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from kindgi_dev.runtime.host import Runtime
from kindgi_dev.runtime.pack import PackIndex, index_pack
from kindgi_dev.runtime.pack_service import PackService, idempotency_key, readable
from kindgi_dev.settings import Settings

T = TypeVar("T")
TOKEN = "t" * 40
CALL = {"tenant_id": "tenant-1", "project_id": None, "run_id": "run-1"}


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for the module, so the pack service boots once."""
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """What the service printed."""
    return []


@pytest.fixture(scope="module")
def service(
    tmp_path_factory: pytest.TempPathFactory,
    pack_writer: Callable[..., Path],
    loop: asyncio.AbstractEventLoop,
    lines: list[str],
) -> Iterator[PackService]:
    pack = pack_writer(tmp_path_factory.mktemp("served"))
    index = loop.run_until_complete(index_pack(pack))
    started = PackService(
        index_path=index.path,
        module_root=pack,
        python=sys.executable,
        token=TOKEN,
        printer=lines.append,
        on_restart=lambda port: lines.append(f"restarted on {port}"),
    )
    loop.run_until_complete(started.start())
    yield started
    loop.run_until_complete(started.stop())


def run(loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, T]) -> T:
    return loop.run_until_complete(work)


def test_invoke_a_tool(service: PackService, loop: asyncio.AbstractEventLoop) -> None:
    outcome = run(
        loop,
        service.invoke(
            "demo.hello.greet", "1.0.0", {"name": "Ada", "excited": True}, request_id="c1", **CALL
        ),
    )
    assert outcome.ok
    assert outcome.output == {"text": "Hello, Ada!", "runId": "run-1"}


def test_input_validation_error_is_an_outcome(
    service: PackService, loop: asyncio.AbstractEventLoop
) -> None:
    outcome = run(
        loop, service.invoke("demo.hello.greet", None, {"name": ""}, request_id="c2", **CALL)
    )
    assert not outcome.ok
    assert outcome.code == "input-validation-failed"
    assert outcome.details["issues"][0]["instancePath"] == "/name"


def test_unknown_tool_and_version(service: PackService, loop: asyncio.AbstractEventLoop) -> None:
    missing = run(loop, service.invoke("demo.hello.nope", None, {}, request_id="c3", **CALL))
    assert missing.code == "tool-not-in-pack"
    other = run(loop, service.invoke("demo.hello.greet", "2.0.0", {}, request_id="c4", **CALL))
    assert other.code == "tool-version-mismatch"


def test_calls_are_logged_readably(
    service: PackService, loop: asyncio.AbstractEventLoop, lines: list[str]
) -> None:
    """The call's own log line, whichever tests ran before it (in this worker or not)."""
    call = service.invoke("demo.hello.greet", None, {"name": "Lin"}, request_id="c9", **CALL)
    assert run(loop, call).ok
    deadline = time.monotonic() + 5
    while not any("demo.hello.greet ok" in line for line in lines):
        assert time.monotonic() < deadline, "no log line of the call"
        run(loop, asyncio.sleep(0.02))
    call_lines = [line for line in lines if "demo.hello.greet ok" in line]
    assert call_lines and call_lines[0].startswith("[pack] ")
    assert " INFO tool demo.hello.greet ok " in call_lines[0]
    assert not any("Listening on port" in line for line in lines)


def test_restart_after_the_child_is_killed(
    service: PackService, loop: asyncio.AbstractEventLoop, lines: list[str]
) -> None:
    first_pid, first_port = service.pid, service.port
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)

    async def restarted() -> None:
        for _ in range(300):
            if service.port is not None and service.pid != first_pid:
                return
            await asyncio.sleep(0.02)

    run(loop, restarted())
    assert service.pid != first_pid and service.port not in (None, first_port)
    assert "  ⚠ pack service exited (SIGKILL) — restarting" in lines
    assert f"restarted on {service.port}" in lines
    outcome = run(
        loop, service.invoke("demo.hello.greet", None, {"name": "Bo"}, request_id="c5", **CALL)
    )
    assert outcome.output["text"] == "Hello, Bo."


def test_stop_ends_the_child(service: PackService, loop: asyncio.AbstractEventLoop) -> None:
    pid = service.pid
    run(loop, service.stop())
    assert service.port is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid or 0, 0)
    outcome = run(
        loop, service.invoke("demo.hello.greet", None, {"name": "X"}, request_id="c6", **CALL)
    )
    assert outcome.code == "pack-service-unavailable"


def test_idempotency_key_is_uuid5_of_compact_json() -> None:
    namespace = uuid.UUID("a70d5bff-e713-4322-b2ea-9d5c4926a861")
    expected = uuid.uuid5(namespace, '["run-1","call-1","demo.hello.greet"]')
    assert idempotency_key("run-1", "call-1", "demo.hello.greet") == str(expected)


def test_readable_log_lines() -> None:
    record = {
        "time": "2026-01-01T10:11:12.345Z",
        "level": "warn",
        "message": "tool x input-validation-failed 2ms",
        "runId": "r",
        "packId": "demo.hello",
        "inMessage": ["id"],
        "id": "x",
    }
    assert readable(json.dumps(record)) == (
        "[pack] 10:11:12.345 WARN tool x input-validation-failed 2ms runId=r"
    )
    assert readable(json.dumps({**record, "level": "debug"})) is None
    assert readable(json.dumps({**record, "level": "info", "event": "listening"})) is None
    assert readable("Traceback (most recent call last):") == (
        "[pack] Traceback (most recent call last):"
    )


def test_runtime_reload_swaps_in_a_new_version_and_survives_a_bad_save(
    make_pack: Callable[..., Path],
) -> None:
    pack = make_pack()
    printed: list[str] = []
    registered: list[PackIndex] = []

    def on_index(index: PackIndex) -> list[str]:
        registered.append(index)
        return []

    async def scenario() -> None:
        runtime = Runtime(Settings(pack_dir=pack, watch=False), on_index, None, printed.append)
        await runtime.start()
        assert runtime.not_ready() is None and runtime.agent_ids() == ["demo.hello.greeter"]
        first_port = runtime.pack_service_port()
        agent = pack / "agents" / "greeter.py"
        agent.write_text(agent.read_text().replace('version="1.0.0"', 'version="1.1.0"'))
        await runtime.reload({agent})
        assert registered[-1].agents[0]["version"] == "1.1.0"
        assert runtime.pack_service_port() not in (None, first_port)
        agent.write_text("def broken(:\n")
        await runtime.reload({agent})
        assert runtime.index is not None and runtime.index.agents[0]["version"] == "1.1.0"
        outcome = await runtime.invoke(
            "demo.hello.greet", "1.0.0", {"name": "Cy"}, request_id="c7", **CALL
        )
        assert outcome.output["text"] == "Hello, Cy."
        await runtime.stop()
        assert runtime.pack_service_port() is None

    asyncio.run(scenario())
    assert len(registered) == 2
    loaded = [line for line in printed if line.startswith("  ✓ loaded")]
    assert len(loaded) == 1
    assert loaded[0].startswith(
        "  ✓ loaded 2 primitives (1 tools, 0 guardrails, 1 agents, 0 flows) in "
    )
    assert (
        "  ✗ refresh failed [syntax-error] agents/greeter.py:1:12: SyntaxError: invalid syntax"
        in printed
    )
