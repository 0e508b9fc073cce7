"""The index kept under `.kindgi/dev/` between starts: reused when no file of the pack
changed since it was made (no indexer, no syntax check), made anew when one did."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kindgi_dev.runtime import pack as pack_module
from kindgi_dev.runtime.pack import cache_path, index_key, index_pack, pack_python
from kindgi_dev.runtime.prestart import prestart

TOKEN = "t" * 40


def _indexers(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every indexer child `index_pack` starts from now on (they still run)."""
    started: list[list[str]] = []
    real = pack_module._run

    async def run(command: list[str], *args: Any) -> Any:
        started.append(command)
        return await real(command, *args)

    monkeypatch.setattr(pack_module, "_run", run)
    return started


def _cached_at_start(pack: Path) -> bool:
    """Whether `kindgi dev`'s early start finds the index cached (what it started is ended)."""
    early = prestart(pack, TOKEN, {}, "info")
    early.close()
    return early.cached


def test_a_start_on_unchanged_files_reuses_the_index_and_a_change_indexes_anew(
    make_pack: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack()
    started = _indexers(monkeypatch)
    first = asyncio.run(index_pack(pack, reuse=True))  # nothing cached yet: indexed
    assert len(started) == 1 and cache_path(pack).is_file()

    assert _cached_at_start(pack)  # no indexer started beside kindgi dev's imports
    again = asyncio.run(index_pack(pack, reuse=True))
    assert len(started) == 1
    assert again.artifact_version == first.artifact_version
    assert (again.tools, again.agents) == (first.tools, first.agents)
    assert again.path == pack / ".kindgi" / "dev" / "index.json" and again.path.is_file()

    agent = pack / "agents" / "greeter.py"
    agent.write_text(agent.read_text().replace('version="1.0.0"', 'version="1.1.0"'))
    assert not _cached_at_start(pack)
    changed = asyncio.run(index_pack(pack, reuse=True))
    assert len(started) == 2
    assert [a["version"] for a in changed.agents] == ["1.1.0"]
    assert changed.artifact_version != first.artifact_version

    assert _cached_at_start(pack)  # the new index is the one kept
    assert asyncio.run(index_pack(pack, reuse=True)).agents == changed.agents
    assert len(started) == 2


def test_a_save_indexes_anew_even_when_the_files_are_as_cached(
    make_pack: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = make_pack()
    started = _indexers(monkeypatch)
    asyncio.run(index_pack(pack, reuse=True))
    asyncio.run(index_pack(pack))  # a save: checked as it always was
    assert len(started) == 2


def test_an_index_with_a_file_that_failed_is_not_kept(
    make_pack: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the indexer couldn't import may fail for a reason outside the pack (an
    environment variable, a missing package): the next start tries it again."""
    pack = make_pack()
    (pack / "tools" / "fails.py").write_text("raise RuntimeError('no database')\n")
    started = _indexers(monkeypatch)
    index = asyncio.run(index_pack(pack, reuse=True))
    assert index.file_errors
    assert not cache_path(pack).exists()
    asyncio.run(index_pack(pack, reuse=True))
    assert len(started) == 2


def test_the_key_follows_the_sdk_in_the_packs_own_venv(make_pack: Callable[..., Path]) -> None:
    """A pack with its own `.venv` indexes with that venv's SDK: upgrading the SDK there
    makes the next start index anew, though kindgi dev's own SDK did not change."""
    pack = make_pack()
    python = pack / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    site = pack / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "kindgi-0.1.10.dist-info").mkdir(parents=True)
    interpreter = pack_python(pack)
    assert interpreter == str(python)
    first = index_key(pack, interpreter)
    assert index_key(pack, interpreter) == first  # nothing changed: the cached index serves

    (site / "kindgi-0.1.10.dist-info").rename(site / "kindgi-0.1.11.dist-info")
    assert index_key(pack, interpreter) != first
