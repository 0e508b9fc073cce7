"""Shared fixtures: a small Kindgi pack written into a temporary folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` starts one worker more than the cores this process may use: the end-to-end
    tests spend most of their time waiting on the processes they start (kindgi dev, the real
    CLI, whose export waits 7 s on each kind kindgi dev doesn't serve), and a spare worker
    keeps the cores busy meanwhile."""
    return len(os.sched_getaffinity(0)) + 1


LONG_POLES = ("e2e/test_real_cli_sweep.py", "e2e/test_fuzz.py", "e2e/test_release.py")
"""The files that take longest, longest first: each runs on one worker under `--dist
loadfile`, so the suite can end no sooner than the one started last ends."""


NODE_CACHE = Path.home() / ".cache" / "kindgi-dev" / "node-compile-cache"
"""Where Node keeps the V8 code of the real CLI's modules between its runs (Node's own
`NODE_COMPILE_CACHE`, which changes nothing it does): the suite starts the real CLI a few
hundred times, each start about 1.4 s of CPU here. The real-CLI and parity test files,
run four times each way in turns: 44.7 user CPU s on average with the cache, 50.4 with
`NODE_DISABLE_COMPILE_CACHE=1`."""


def pytest_configure(config: pytest.Config) -> None:
    """xdist hands out files in collection order (below), not most tests first: that put the
    files of one or two slow end-to-end tests last, so one worker ran them while the others
    sat idle at the end. Every process the tests start inherits `NODE_CACHE`."""
    if config.pluginmanager.hasplugin("xdist"):
        config.option.loadscopereorder = False
    os.environ.setdefault("NODE_COMPILE_CACHE", str(NODE_CACHE))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whole files in the order the workers should take them: the long poles, then every
    other file with a slow test, then the rest; tests keep their order inside a file."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> tuple[int, int]:
        path = item.path.as_posix()
        poles = [n for n, pole in enumerate(LONG_POLES) if path.endswith(pole)]
        return (0, poles[0]) if poles else (1 if item.path in slow_files else 2, 0)

    items.sort(key=rank)


PYPROJECT = """\
[project]
name = "demo-pack"
version = "0.1.0"

[tool.kindgi.pack]
id = "demo.hello"
version = "1.0.0"
"""

GREET = '''\
from pydantic import BaseModel, Field
from kindgi import ToolContext, tool


class GreetInput(BaseModel):
    name: str = Field(min_length=1)
    excited: bool = False


class Greeting(BaseModel):
    text: str
    run_id: str = Field(alias="runId")


@tool(id="demo.hello.greet", mutating=False, effects=[{"kind": "reads", "resource": "none"}])
def greet(args: GreetInput, ctx: ToolContext) -> Greeting:
    """Builds a greeting for one person."""
    mark = "!" if args.excited else "."
    return Greeting(text=f"Hello, {args.name}{mark}", runId=ctx.run_id)
'''


def agent_source(version: str, name: str = "Greeter") -> str:
    """An agent file defining `demo.hello.greeter` at `version`."""
    return f"""\
from kindgi import Agent
from ..tools.greet import greet

greeter = Agent(
    id="demo.hello.greeter", version="{version}", name="{name}",
    instructions="Greet the user by name with demo.hello.greet.",
    capabilities=[{{"needs": [{{"feature": "tool-use"}}]}}],
    tools=[greet],
)
"""


def write_pack(root: Path, agent_versions: tuple[str, ...] = ("1.0.0",)) -> Path:
    """The worked example's pack (one tool; one agent file per version) under `root`."""
    (root / "tools").mkdir(parents=True, exist_ok=True)
    (root / "agents").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tools" / "greet.py").write_text(GREET)
    for number, version in enumerate(agent_versions):
        name = "greeter.py" if number == 0 else f"greeter_{number + 1}.py"
        (root / "agents" / name).write_text(agent_source(version))
    return root


@pytest.fixture
def make_pack(tmp_path: Path) -> Callable[..., Path]:
    """`make_pack(agent_versions=("1.0.0",))`: write the demo pack into a fresh folder."""

    def make(agent_versions: tuple[str, ...] = ("1.0.0",), name: str = "pack") -> Path:
        return write_pack(tmp_path / name, agent_versions)

    return make


@pytest.fixture(scope="session")
def pack_writer() -> Callable[..., Path]:
    """`write_pack(root, agent_versions)`, for module-scoped fixtures that share one pack."""
    return write_pack


@pytest.fixture(autouse=True)
def _answers_match_their_response_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every answer a test client gets validates as its operation's declared response model."""
    from response_schema import checking
    from starlette.testclient import TestClient

    monkeypatch.setattr(TestClient, "request", checking(TestClient.request))
