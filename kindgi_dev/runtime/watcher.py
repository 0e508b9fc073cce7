"""Watching the pack for saves: `.py` files, `pyproject.toml` and the models file.

Changes are grouped by `watchfiles`: a burst is handed over once 20 ms pass without a new
change (at most 150 ms after its first); while one reload runs, further saves pile up and
are handed over together as one more reload when it finishes.

Each folder that can hold pack files is watched on its own, never dot folders: the store
lives in the pack's `.kindgi/`, and watched recursively every page SQLite wrote there woke
the watcher's thread (~18 events a correction, a tenth of the server's CPU under `wrk`).
A folder made later is watched from then on, its files counted as changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from watchfiles import Change, awatch

from .pack import SKIPPED_DIRS, pack_walk

DEBOUNCE_MS = 150
STEP_MS = 20
"""Quiet time that ends a burst: an editor's save (write, or temp file and rename) takes a
few ms; watchfiles' default of 50 ms was a tenth of the save → listed target."""
STOP_WAIT_S = 20.0

log = logging.getLogger("kindgi_dev.runtime.watcher")

OnChange = Callable[[set[Path]], Awaitable[None]]


class PackFilter:
    """Which paths count as pack changes: sources and config, never state or environments."""

    def __init__(self, pack_dir: Path, extra_files: Iterable[Path] = ()) -> None:
        self.pack_dir = pack_dir.resolve()
        self.extra_files = {path.resolve() for path in extra_files}

    def __call__(self, change: Change, path: str) -> bool:
        """Whether a change to `path` should reload the pack."""
        candidate = Path(path)
        if candidate in self.extra_files:
            return True
        try:
            parts = candidate.relative_to(self.pack_dir).parts
        except ValueError:
            return False
        if not parts or any(p.startswith(".") or p in SKIPPED_DIRS for p in parts[:-1]):
            return False
        name = parts[-1]
        return (name.endswith(".py") and not name.startswith(".")) or name == "pyproject.toml"


class PackWatcher:
    """Calls `on_change` with the changed paths after each burst of saves, one call at a time."""

    def __init__(
        self,
        pack_dir: Path,
        on_change: OnChange,
        *,
        extra_files: Iterable[Path] = (),
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        self.filter = PackFilter(pack_dir, extra_files)
        self._on_change = on_change
        self._debounce_ms = debounce_ms
        self._pending: set[Path] = set()
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Begin watching in the background."""
        self._tasks = [
            asyncio.create_task(self._watch(), name="pack-watcher"),
            asyncio.create_task(self._deliver(), name="pack-reloader"),
        ]

    async def stop(self) -> None:
        """Stop watching; a reload that is running finishes first (up to 20 s)."""
        self._stop.set()
        self._wake.set()
        if not self._tasks:
            return
        _, pending = await asyncio.wait(self._tasks, timeout=STOP_WAIT_S)
        for task in pending:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def _roots(self) -> list[Path]:
        """The pack's folders (`pack_folders`), and the folder of each extra file."""
        roots = pack_folders(self.filter.pack_dir)
        for path in self.filter.extra_files:
            if path.parent not in roots:
                roots.append(path.parent)
        return roots

    def _passes(self, change: Change, path: str) -> bool:
        """A pack change, or a folder made where pack files may go (watched once made)."""
        return self.filter(change, path) or (
            change == Change.added and self._new_folder(Path(path))
        )

    def _new_folder(self, path: Path) -> bool:
        try:
            parts = path.relative_to(self.filter.pack_dir).parts
        except ValueError:
            return False
        return path.is_dir() and not any(p.startswith(".") or p in SKIPPED_DIRS for p in parts)

    async def _watch(self) -> None:
        """Collect changed paths (already debounced and filtered) until stopped; watch
        again, the new folders too, once one was made."""
        while not self._stop.is_set():
            watching = awatch(
                *self._roots(),
                watch_filter=self._passes,
                debounce=self._debounce_ms,
                step=STEP_MS,
                stop_event=self._stop,
                rust_timeout=1000,
                recursive=False,
            )
            async with contextlib.aclosing(watching):
                async for changes in watching:
                    paths = {Path(path) for _, path in changes}
                    made = {path for path in paths if self._new_folder(path)}
                    self._pending.update(paths - made)
                    for folder in made:  # saved into before it was watched
                        self._pending.update(self._files_under(folder))
                    self._wake.set()
                    if made:
                        break

    def _files_under(self, top: Path) -> set[Path]:
        """The pack files in `top` and the folders under it."""
        return {
            folder / name
            for folder, names in pack_walk(top)
            for name in names
            if self.filter(Change.added, str(folder / name))
        }

    async def _deliver(self) -> None:
        """Hand the collected paths to `on_change`, one call at a time."""
        while not self._stop.is_set():
            await self._wake.wait()
            self._wake.clear()
            if self._stop.is_set() or not self._pending:
                continue
            changed, self._pending = self._pending, set()
            try:
                await self._on_change(changed)
            except Exception:
                log.exception("reloading the pack failed")


def pack_folders(top: Path) -> list[Path]:
    """`top` and every folder under it that may hold pack files (`pack_walk`'s)."""
    return [folder for folder, _ in pack_walk(top)]
