"""Saving flow files while kindgi dev runs: a new version beside the old, a bad save reported."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from example_pack import EXAMPLE

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.host import Runtime
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.settings import Settings

pytestmark = pytest.mark.slow  # the indexer and pack service run three times as children

LOOP_FLOW = """from kindgi import Flow

each = Flow(
    id="acme-ops.each",
    version="0.1.0",
    nodes=[{"id": "per-item", "kind": "loop", "loopKind": "foreach",
            "iterateOver": {"path": "runInput.items"}, "maxIterations": 3,
            "outputSchema": {"type": "object"},
            "body": {"nodes": [{"id": "find", "kind": "tool", "ref": "acme-ops.find-articles"}],
                     "edges": [{"id": "in", "from": "$loop-start", "to": "fnd"}]}}],
    edges=[{"id": "start", "from": "$start", "to": "per-item"}],
)
"""


def test_a_saved_flow_version_is_registered_beside_the_old_and_a_bad_save_keeps_it(
    tmp_path: Path,
) -> None:
    pack = shutil.copytree(EXAMPLE, tmp_path / "pack",
                           ignore=shutil.ignore_patterns(".kindgi*", "__pycache__"))  # fmt: skip
    ctx = context_of(create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False)))
    printed: list[str] = []

    def on_index(index: PackIndex) -> list[str]:
        return catalog.register(ctx, index)

    def versions(flow_id: str) -> list[str]:
        page = catalog.list_versions(ctx, "flow", flow_id, limit=None, cursor=None,
                                     include_tombstoned=False)  # fmt: skip
        return [str(entry["version"]) for entry in page.items]

    async def scenario() -> None:
        runtime = Runtime(Settings(pack_dir=pack, watch=False), on_index, None, printed.append)
        await runtime.start()
        assert versions("acme-ops.suggest-articles") == ["0.1.0"]
        source = (pack / "flows" / "suggest_articles.py").read_text()
        newer = pack / "flows" / "suggest_articles_v2.py"
        newer.write_text(source.replace('version="0.1.0"', 'version="0.2.0"')
                         .replace("suggest_articles =", "suggest_articles_v2 ="))  # fmt: skip
        loop = pack / "flows" / "each.py"
        loop.write_text(LOOP_FLOW)
        await runtime.reload({newer, loop})
        assert versions("acme-ops.suggest-articles") == ["0.1.0", "0.2.0"]
        newer.write_text("broken = (\n")
        await runtime.reload({newer})
        assert versions("acme-ops.suggest-articles") == ["0.1.0", "0.2.0"]
        assert runtime.index is not None
        assert sorted(f["version"] for f in runtime.index.flows
                      if f["id"] == "acme-ops.suggest-articles") == ["0.1.0", "0.2.0"]  # fmt: skip
        await runtime.stop()

    asyncio.run(scenario())
    assert (
        "  ✗ flows/each.py: flow acme-ops.each 0.1.0 is not registered: "
        "in loop per-item: edge in goes to fnd, which is not a node; "
        "in loop per-item: node find has no edge into it"
    ) in printed
    refused = [line for line in printed if line.startswith("  ✗ refresh failed")]
    assert len(refused) == 1
    assert refused[0].startswith("  ✗ refresh failed [syntax-error] flows/suggest_articles_v2.py:1")
