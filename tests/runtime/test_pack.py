"""Indexing a pack through the real SDK, and which saved files count as pack changes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from watchfiles import Change

from kindgi_dev.runtime.pack import (
    PackLoadFailed,
    index_pack,
    next_artifact_version,
    pack_files,
    publish_index,
)
from kindgi_dev.runtime.watcher import PackFilter, PackWatcher, pack_folders


def test_index_a_pack_with_a_tool_and_an_agent(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    index = asyncio.run(index_pack(pack))
    assert (index.pack_id, index.pack_version) == ("demo.hello", "1.0.0")
    assert [t["id"] for t in index.tools] == ["demo.hello.greet"]
    assert [(a["id"], a["version"]) for a in index.agents] == [("demo.hello.greeter", "1.0.0")]
    assert index.flows == [] and index.guardrails == [] and index.file_errors == []
    assert index.path == pack / ".kindgi" / "dev" / "index.json"
    assert json.loads(index.path.read_text())["agents"][0]["modulePath"] == "agents/greeter.py"
    assert not (pack / ".kindgi" / "dev" / "index.next.json").exists()
    assert index.primitive_count == 2


def test_staged_index_is_published_by_rename(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    staged = asyncio.run(index_pack(pack, publish=False))
    assert staged.path.name == "index.next.json" and staged.path.exists()
    published = publish_index(staged, pack)
    assert published.path.name == "index.json" and not staged.path.exists()
    day, _, count = published.artifact_version.partition(".")
    assert count == "1" and next_artifact_version(published.path) == f"{day}.2"
    assert asyncio.run(index_pack(pack)).artifact_version == f"{day}.2"


def test_syntax_error_reports_file_line_and_column(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    (pack / "tools" / "broken.py").write_text("x = 1\ndef f(:\n    pass\n")
    with pytest.raises(PackLoadFailed) as failed:
        asyncio.run(index_pack(pack))
    error = failed.value
    assert error.wire_code == "syntax-error"
    assert (error.file, error.line, error.col) == ("tools/broken.py", 2, 7)
    assert error.describe() == "tools/broken.py:2:7: SyntaxError: invalid syntax"
    assert not (pack / ".kindgi" / "dev" / "index.json").exists()


def test_syntax_check_skips_environments_and_state(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    for folder in (".venv/lib", "node_modules/x", "tools/__pycache__", ".kindgi"):
        (pack / folder).mkdir(parents=True, exist_ok=True)
        (pack / folder / "bad.py").write_text("def (:\n")
    assert sorted(str(p.relative_to(pack)) for p in pack_files(pack)) == [
        "agents/greeter.py",
        "tools/greet.py",
    ]
    assert asyncio.run(index_pack(pack)).file_errors == []


def test_import_error_names_the_file(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    source = (pack / "agents" / "greeter.py").read_text()
    (pack / "agents" / "greeter.py").write_text("import no_such_module_here\n" + source)
    index = asyncio.run(index_pack(pack))
    assert index.agents == [] and len(index.tools) == 1
    problem = index.problem(pack)
    assert problem is not None
    assert (problem.wire_code, problem.file, problem.line) == (
        "file-import-failed",
        "agents/greeter.py",
        1,
    )
    assert "No module named 'no_such_module_here'" in problem.describe()
    assert problem.describe().startswith("agents/greeter.py:1: ModuleNotFoundError")


def test_a_broken_config_is_a_load_failure(make_pack: Callable[..., Path]) -> None:
    pack = make_pack()
    (pack / "pyproject.toml").write_text('[tool.kindgi.pack]\nversion = "1.0.0"\n')
    with pytest.raises(PackLoadFailed) as failed:
        asyncio.run(index_pack(pack))
    assert failed.value.wire_code == "config-parse-failed"
    assert "pack.id" in failed.value.message


def test_filter_keeps_sources_and_config_only(tmp_path: Path) -> None:
    models = tmp_path / "elsewhere" / "models.py"
    keep = PackFilter(tmp_path / "pack", extra_files=[models])
    pack = str(tmp_path / "pack")
    assert keep(Change.modified, f"{pack}/tools/greet.py")
    assert keep(Change.added, f"{pack}/pyproject.toml")
    assert keep(Change.modified, str(models))
    for ignored in (
        ".kindgi/dev/index.json",
        ".kindgi/x.py",
        ".venv/lib/site.py",
        "tools/__pycache__/greet.cpython-311.py",
        "node_modules/a.py",
        "README.md",
        ".kindgirc.json",
        "tools/.greet.py",
    ):
        assert not keep(Change.modified, f"{pack}/{ignored}"), ignored


async def until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Wait until `condition()` holds (or the time is up)."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)


def test_watcher_collapses_a_burst_of_saves(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    seen: list[set[Path]] = []

    async def scenario() -> None:
        async def on_change(changed: set[Path]) -> None:
            seen.append(changed)
            await asyncio.sleep(0.3)

        watcher = PackWatcher(tmp_path, on_change, debounce_ms=50)
        watcher.start()
        await asyncio.sleep(0.2)
        (tmp_path / "tools" / "a.py").write_text("a = 1\n")
        await until(lambda: len(seen) == 1)
        for name in ("b.py", "c.py"):
            (tmp_path / "tools" / name).write_text("b = 1\n")
        (tmp_path / "notes.md").write_text("ignored\n")
        await until(lambda: sum(len(batch) for batch in seen) >= 3)
        await watcher.stop()

    asyncio.run(scenario())
    assert {p.name for batch in seen for p in batch} == {"a.py", "b.py", "c.py"}
    assert len(seen) == 2


def test_watcher_watches_folders_made_later_and_removed(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    seen: set[Path] = set()

    async def scenario() -> None:
        async def on_change(changed: set[Path]) -> None:
            seen.update(changed)

        watcher = PackWatcher(tmp_path, on_change, debounce_ms=50)
        watcher.start()
        await asyncio.sleep(0.2)
        (tmp_path / "tools").rmdir()
        (tmp_path / "agents" / "deep").mkdir(parents=True)
        (tmp_path / "agents" / "deep" / "a.py").write_text("a = 1\n")
        await until(lambda: tmp_path / "agents" / "deep" / "a.py" in seen)
        await asyncio.sleep(0.2)
        (tmp_path / "agents" / "deep" / "b.py").write_text("b = 1\n")
        await until(lambda: tmp_path / "agents" / "deep" / "b.py" in seen)
        await watcher.stop()

    asyncio.run(scenario())
    assert {p.name for p in seen} == {"a.py", "b.py"}


def test_the_store_and_dot_folders_are_not_watched(tmp_path: Path) -> None:
    for folder in (".kindgi/dev", ".venv/lib", "tools/__pycache__", "tools/sub"):
        (tmp_path / folder).mkdir(parents=True)
    assert set(pack_folders(tmp_path)) == {tmp_path, tmp_path / "tools", tmp_path / "tools/sub"}
