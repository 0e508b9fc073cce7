"""A save is listed as soon as it is indexed: its versions are registered while its new pack
service boots, and a tool call made meanwhile waits for that service, never the old code."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kindgi_dev.runtime.host import Runtime
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.runtime.pack_service import InvokeOutcome
from kindgi_dev.settings import Settings

CALL: dict[str, Any] = {"tenant_id": "t1", "project_id": None, "run_id": "r1", "request_id": "q1"}


def test_a_save_is_registered_before_its_service_listens_and_calls_wait_for_it(
    make_pack: Callable[..., Path],
) -> None:
    pack = make_pack()
    seen: list[tuple[str, int | None]] = []
    calls: list[asyncio.Task[InvokeOutcome]] = []

    async def scenario() -> None:
        def on_index(index: PackIndex) -> list[str]:
            seen.append((index.agents[0]["version"], runtime.pack_service_port()))
            if len(seen) == 2:  # the save: a call made while the new service boots
                calls.append(asyncio.create_task(call()))
            return []

        async def call() -> InvokeOutcome:
            return await runtime.invoke("demo.hello.greet", "1.0.0", {"name": "Cy"}, **CALL)

        runtime = Runtime(Settings(pack_dir=pack, watch=False), on_index, None, lambda _: None)
        await runtime.start()
        first_port = runtime.pack_service_port()
        tool = pack / "tools" / "greet.py"
        tool.write_text(tool.read_text().replace('f"Hello, ', 'f"Hi again, '))
        agent = pack / "agents" / "greeter.py"
        agent.write_text(agent.read_text().replace('version="1.0.0"', 'version="1.1.0"'))
        await runtime.reload({tool, agent})
        assert seen == [("1.0.0", first_port), ("1.1.0", first_port)]  # listed, old one serving
        assert runtime.pack_service_port() not in (None, first_port)
        outcome = await calls[0]
        assert outcome.ok and outcome.output["text"] == "Hi again, Cy."
        await runtime.stop()

    asyncio.run(scenario())
