"""The article-picker example served in-process with its flows, its tools run by their handlers.

`flow_served` registers the example's real index and stands in for the pack service with
`InProcessPack`, which calls each tool's handler at the version asked for, as the pack
service would, so flow runs and their replays need no child process.
"""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from examples_committed import example
from kindgi import Tool, ToolContext
from kindgi.pack.index import run_indexer
from kindgi.pack.loader import import_pack_module, mount_pack, primitives_of
from starlette.testclient import TestClient

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.runtime.pack_service import InvokeOutcome
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

EXAMPLE = example("article-picker")
SUGGEST = "acme-ops.suggest-articles"
SUGGEST_AND_LOG = "acme-ops.suggest-and-log"
FIND = "acme-ops.find-articles"
PASSWORD = "I forgot my password and can't sign in."
REFUND = "I was charged twice for one order. How do I get my money back?"
PACKAGE = "My package hasn't arrived yet. Where is it?"
QUESTIONS = (PASSWORD, REFUND, PACKAGE)


@functools.cache
def example_index() -> dict[str, Any]:
    """The example pack's index, as the SDK writes it (once per test session)."""
    output = Path(tempfile.mkdtemp()) / "index.json"
    outcome = run_indexer(EXAMPLE, output_path=output)
    assert outcome["kind"] == "ok", outcome
    data: dict[str, Any] = json.loads(output.read_text("utf-8"))
    return data


class InProcessPack:
    """Runs the example's tool handlers in this process, at the version asked for."""

    def __init__(self, index: dict[str, Any]) -> None:
        mount_pack(EXAMPLE)
        self.tools = {(t["id"], t["version"]): t for t in index["tools"]}
        self.calls: list[tuple[str, str, Any]] = []

    async def stop(self) -> None:
        """Nothing to stop: no child process runs."""

    def not_ready(self) -> str | None:
        """Nothing keeps it from serving, as `Runtime.not_ready` says."""
        return None

    def tool_manifest(self, tool_id: str, version: str | None = None) -> dict[str, Any] | None:
        """A tool's entry as the pack serves it, as `Runtime.tool_manifest` answers."""
        found = [t for (i, v), t in self.tools.items() if i == tool_id and version in (v, None)]
        return dict(found[-1]) if found else None

    async def invoke(self, tool_id: str, version: str | None, input: Any, **_: Any) -> Any:
        """The tool's output, or an error outcome, as the pack service answers."""
        self.calls.append((tool_id, version or "", input))
        manifest = self.tools.get((tool_id, version or ""))
        if manifest is None:
            return InvokeOutcome.failure("tool-not-found", f"no {tool_id} {version}")
        module = import_pack_module(manifest["modulePath"])
        handler = next(
            p
            for p in primitives_of(module)
            if isinstance(p, Tool) and p.id == tool_id and p.version in (version, None)
        )
        try:
            value = handler.parse_input(input)
            context = ToolContext.for_test(run_id="run-test")
            output = handler.dump_output(handler.handler(*handler.invoke_args(value, context)))
        except Exception as cause:
            return InvokeOutcome.failure("tool-error", f"{type(cause).__name__}: {cause}")
        return InvokeOutcome(ok=True, output=output)


@contextmanager
def flow_served(tmp_path: Path) -> Iterator[tuple[TestClient, Context, InProcessPack]]:
    """An app on a temp folder with the example's index registered and its tools in-process."""
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    settings = Settings(pack_dir=tmp_path, start_pack=False, watch=False,
                        models_file=EXAMPLE / "dev_models.py")  # fmt: skip
    app = create_app(settings)
    ctx = context_of(app)
    data = example_index()
    pack = InProcessPack(data)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        index = PackIndex(
            pack_id=data["packId"], pack_version=data["packVersion"],
            artifact_version=data["artifactVersion"], tools=data["tools"], agents=data["agents"],
            flows=data["flows"], guardrails=[], file_errors=[], path=Path("index.json"),
            warnings=[],
        )  # fmt: skip
        catalog.register(ctx, index)
        ctx.runtime = pack
        yield client, ctx, pack
