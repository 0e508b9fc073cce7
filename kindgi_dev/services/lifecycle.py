"""Starting and stopping what runs beside the API: the pack, its watcher, the eval executor."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ..runtime.host import Runtime
from . import catalog, eval_runs, models, runs
from .context import Context

Progress = Callable[[str, float], None]


def say(line: str) -> None:
    """A runtime line (progress, reload, `[pack]` log) on stderr."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


async def start(ctx: Context, progress: Progress | None = None) -> None:
    """Bring up the instance's background parts, reporting each phase's time.

    Runs and eval runs a stopped process left going are failed first, saying why.
    """
    for left, what in ((runs.fail_interrupted(ctx), "run"),
                       (eval_runs.fail_interrupted(ctx), "eval run")):  # fmt: skip
        if left:
            say(f"  ⚠ {left} {what}(s) were going when kindgi dev last stopped: marked failed")
    if not ctx.settings.start_pack:
        return
    runtime = Runtime(
        ctx.settings,
        on_index=lambda index: catalog.register(ctx, index),
        pack_service_token=ctx.extras.get("pack_service_token"),
        printer=say,
        on_pack_service=lambda: _pack_service_moved(ctx),
        models_changed=lambda path: _reload_models(ctx, path),
        prestarted=ctx.extras.pop("prestarted_index", None),
    )
    ctx.runtime = runtime
    try:
        await runtime.start(progress)
    except BaseException:
        await runtime.stop()
        raise


async def stop(ctx: Context) -> None:
    """Stop the background parts; in-flight requests have finished by now."""
    if ctx.runtime is not None:
        await ctx.runtime.stop()
    await models.close(ctx)


def _pack_service_moved(ctx: Context) -> None:
    """The pack service's port changed: `kindgi dev` rewrites `.kindgirc.json` (its hook)."""
    hook = ctx.extras.get("on_pack_service")
    if hook is not None:
        hook()


def _reload_models(ctx: Context, path: Path) -> None:
    """Load the saved function-models file now, so a broken one is reported at once."""
    models.function_models(ctx)
