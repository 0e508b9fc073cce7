"""Starting and stopping what runs beside the API: the pack, its watcher, the eval executor.

What a stopped process left going (runs, eval runs, decided approvals) is looked up in the
store first, and the service that ends it is imported only when there is some: a start
that finds nothing imports none of them (a fifth of a warm start's imports), and they are
imported at the first request that needs them.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..runtime.host import Runtime
from ..runtime.pack import PackIndex
from ..runtime.prestart import Prestart
from ..settings import Settings
from ..store import eval_runs as eval_run_store
from ..store import run_waits as wait_store
from ..store import runs as run_store
from ..store.db import Database
from . import catalog, identity, live, models, projects
from .context import Context

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Instance:
    """What `kindgi dev` prints and writes to `.kindgirc.json` about the running instance."""

    token: str
    tenant_id: str
    user_id: str
    project_id: str
    project_name: str
    agent_ids: tuple[str, ...]
    models_summary: str | None
    live: tuple[str, ...]
    pack_service_port: int | None
    pack_service_token: str | None


def open_context(
    settings: Settings,
    *,
    pack_service_token: str | None = None,
    prestarted: Prestart | None = None,
) -> Context:
    """Open and migrate the store, and the context every service call gets.

    Runs and eval runs a stopped process left going are failed here, saying why, so a
    store that can't be read is reported before anything starts serving.
    """
    db = Database(settings.database_path)
    db.migrate()
    ctx = Context(
        db=db,
        identity=identity.ensure(db),
        settings=settings,
        pack_service_token=pack_service_token,
        prestarted_index=prestarted,
    )
    if run_store.running(db):
        from . import runs

        _said_failed(runs.fail_interrupted(ctx), "run")
    if eval_run_store.unfinished(db):
        from . import eval_runs

        _said_failed(eval_runs.fail_interrupted(ctx), "eval run")
    return ctx


def _said_failed(left: int, what: str) -> None:
    if left:
        say(f"  ⚠ {left} {what}(s) were going when kindgi dev last stopped: marked failed")


def describe(ctx: Context) -> Instance:
    """The instance as `kindgi dev` shows it: its token, project, agents and pack service."""
    project = projects.get_default(ctx)
    runtime = ctx.runtime
    return Instance(
        token=ctx.identity.token,
        tenant_id=ctx.identity.tenant_id,
        user_id=ctx.identity.user_id,
        project_id=project.id,
        project_name=project.name,
        agent_ids=tuple(runtime.agent_ids()) if runtime is not None else (),
        models_summary=runtime.models_summary() if runtime is not None else None,
        live=tuple(live.banner_lines(ctx)),
        pack_service_port=runtime.pack_service_port() if runtime is not None else None,
        pack_service_token=(
            runtime.pack_service_token if runtime is not None else ctx.pack_service_token
        ),
    )


def say(line: str) -> None:
    """A runtime line (progress, reload, `[pack]` log) on stderr."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


async def start(ctx: Context, progress: Progress | None = None) -> None:
    """Bring up the instance's background parts, reporting each phase's time."""
    ctx.home = asyncio.get_running_loop()
    if not ctx.settings.start_pack:
        return
    prestarted, ctx.prestarted_index = ctx.prestarted_index, None
    runtime = Runtime(
        ctx.settings,
        on_index=lambda index: _register(ctx, index),
        pack_service_token=ctx.pack_service_token,
        printer=say,
        on_pack_service=lambda: _pack_service_moved(ctx),
        models_changed=lambda path: _reload_models(ctx, path),
        prestarted=prestarted,
    )
    ctx.runtime = runtime
    try:
        await runtime.start(progress)
    except BaseException:
        await runtime.stop()
        raise
    if wait_store.decided_open(ctx.db):
        from . import run_waits

        run_waits.resume_decided(ctx)
        say("  · runs whose approval was decided as kindgi dev stopped go on now")


async def stop(ctx: Context) -> None:
    """Stop the background parts and close the store; in-flight requests have finished.

    Eval runs stop first, recorded as interrupted with their open replays, so nothing
    writes after the store closes.
    """
    if ctx.eval_loop is not None or ctx.eval_tasks:
        from . import eval_runs, runs  # imported already: an eval run started in this process

        if await eval_runs.interrupt_all(ctx):
            runs.fail_interrupted(ctx)
    if ctx.runtime is not None:
        await ctx.runtime.stop()
    await models.close(ctx)
    ctx.db.close()


def _register(ctx: Context, index: PackIndex) -> list[str]:
    """Register the index's new versions; the warnings, and a note for each new agent version
    that a live pin keeps runs off."""
    saved = catalog.new_agent_versions(ctx, index)
    return catalog.register(ctx, index) + live.held_back_notes(ctx, saved)


def _pack_service_moved(ctx: Context) -> None:
    """The pack service's port changed: `kindgi dev` rewrites `.kindgirc.json` (its hook)."""
    if ctx.on_pack_service is not None:
        ctx.on_pack_service()


def _reload_models(ctx: Context, path: Path) -> None:
    """Load the saved function-models file now, so a broken one is reported at once."""
    models.function_models(ctx)
