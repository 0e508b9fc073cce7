"""Starting and stopping what runs beside the API: the pack, its watcher, the eval executor."""

from __future__ import annotations

from collections.abc import Callable

from .context import Context

Progress = Callable[[str, float], None]


async def start(ctx: Context, progress: Progress | None = None) -> None:
    """Bring up the instance's background parts, reporting each phase's time."""


async def stop(ctx: Context) -> None:
    """Stop the background parts; in-flight requests have finished by now."""
