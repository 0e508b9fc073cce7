"""`kindgi dev`: start the runtime on this pack, print what started and how long it took."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import secrets
import signal
import sys
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..domain.errors import KindgiError
from ..runtime.memory import collector_paused
from ..runtime.prestart import Prestart, prestart
from ..settings import DEFAULT_HOST, DEFAULT_PORT, Settings
from . import banner
from .devstate import Lock, acquire_all, choose_socket, pack_service_token, read_rc, write_rc

if TYPE_CHECKING:
    from ..app import Instance

LOG_LEVELS = ["error", "warn", "info", "debug", "trace"]


def say(line: str) -> None:
    """A progress line on stderr."""
    click.echo(line, err=True)


def check_pack(pack_dir: Path) -> None:
    """The folder must be a Kindgi pack: `pyproject.toml` with `[tool.kindgi]`."""
    config = pack_dir / "pyproject.toml"
    try:
        data = tomllib.loads(config.read_text())
    except FileNotFoundError:
        data = {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise click.ClickException(f"{config} can't be read: {error}") from None
    if "kindgi" not in data.get("tool", {}):
        raise click.ClickException(
            f"{pack_dir} is not a Kindgi pack: it needs a pyproject.toml with [tool.kindgi.pack]. "
            "Pass --path=<pack dir>, or create one with `kindgi init <pack-name>`."
        )


def keep_state_private(settings: Settings) -> None:
    """`.kindgi/` is 0700 (the token is in its database), tightened if an older version made
    it; a `--data-dir` that doesn't exist yet is made 0700 too (one that does is the user's)."""
    folder = settings.pack_dir / ".kindgi"
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    if not settings.state_dir.exists():
        settings.state_dir.parent.mkdir(parents=True, exist_ok=True)
        settings.state_dir.mkdir(mode=0o700, exist_ok=True)


def reset(settings: Settings, yes: bool) -> None:
    """`--reset`: a fresh database file and a new token, after asking."""
    if not yes:
        if not sys.stdin.isatty():
            raise click.ClickException("kindgi dev --reset needs --yes when not on a terminal.")
        if not click.confirm("Drop this pack's kindgi dev database and token?", err=True):
            raise click.ClickException("kindgi dev --reset: nothing dropped.")
    for suffix in ("", "-wal", "-shm"):
        Path(str(settings.database_path) + suffix).unlink(missing_ok=True)
    settings.rc_path.unlink(missing_ok=True)
    say("  🧹 --reset: dropped the database and removed .kindgirc.json (a new token this boot)")


@click.command("dev")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    envvar="KINDGI_DEV_PORT",
    help="Port (default 4000, next free; KINDGI_DEV_PORT).",
)
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option(
    "--path",
    "pack_path",
    type=click.Path(file_okay=False, path_type=Path),
    help="The pack's folder (default: the current one).",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the SQLite file lives (default: <pack>/.kindgi).",
)
@click.option(
    "--models",
    "models_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file of function models (default: [tool.kindgi-dev] models).",
)
@click.option("--reset", "do_reset", is_flag=True, help="Start a fresh database and token.")
@click.option("--yes", is_flag=True, help="Answer yes to --reset.")
@click.option(
    "--watch/--no-watch",
    default=True,
    help="Watch the pack (default); --no-watch boots, registers once and exits.",
)
@click.option("--log-level", type=click.Choice(LOG_LEVELS), help="Log level (default info).")
@click.option(
    "--eval-concurrency",
    type=click.IntRange(1, 64),
    default=None,
    help="How many replays a run on the test cases runs at once "
    "(default: 16 with an HTTP model provider, the CPU count with function models).",
)
@click.option("--quiet", is_flag=True, help="Errors only.")
def dev(
    port: int | None,
    host: str,
    pack_path: Path | None,
    data_dir: Path | None,
    models_file: Path | None,
    do_reset: bool,
    yes: bool,
    watch: bool,
    log_level: str | None,
    eval_concurrency: int | None,
    quiet: bool,
) -> None:
    """Run this pack's agents locally, with the /v1 API of a deployed Kindgi."""
    started = time.perf_counter()
    pack_dir = (pack_path or Path.cwd()).resolve()
    check_pack(pack_dir)
    level = "error" if quiet else (log_level or os.environ.get("KINDGI_LOG_LEVEL") or "info")
    settings = Settings(
        pack_dir=pack_dir,
        data_dir=data_dir.resolve() if data_dir else None,
        host=host,
        port=DEFAULT_PORT if port is None else port,
        watch=watch,
        models_file=models_file.resolve() if models_file else None,
        log_level=level,
        eval_concurrency=eval_concurrency,
    )
    logging.basicConfig(level=logging.ERROR if level == "error" else logging.WARNING)
    keep_state_private(settings)
    locks = [Lock(path, pack_dir) for path in settings.lock_paths]
    holder = acquire_all(locks)
    if holder is not None:
        banner.already_running(holder, settings.database_path)
        sys.exit(3)
    try:
        for previous in sorted({lock.previous_pid for lock in locks if lock.previous_pid}):
            say(
                f"  · the previous kindgi dev (pid {previous}) ended without "
                "removing its lock; taken over"
            )
        if do_reset:
            reset(settings, yes)
        token = pack_service_token(read_rc(settings.rc_path)) or secrets.token_urlsafe(32)
        # The pack service (or, when a file changed, the indexer) boots in its own process
        # while this one imports and builds the app: spawned first, waited for last.
        early = prestart(pack_dir, token, settings.env, level)
        try:
            exit_code = serve(
                settings,
                locks,
                explicit_port=port is not None,
                started=started,
                token=token,
                prestarted=early,
            )
        finally:
            early.close()
    finally:
        for lock in reversed(locks):
            lock.release()
    sys.exit(exit_code)


FULL_COLLECTION_EVERY = 100
"""Middle-generation collections between two full ones (Python's default: 10)."""


def settle_collector() -> None:
    """Once the app is built: freeze what start made (`gc.freeze`: ~75,000 objects that
    live as long as the process), and collect the oldest generation a tenth as often.

    A full collection walks every object it tracks holding the GIL, so the event loop
    waits meanwhile: with the app in the walk, and one every ~70,000 new objects, a large
    correction handled in a worker thread paused the reads served meanwhile 30-110 ms,
    several times.
    Start's garbage is frozen with the rest, not collected first: it is ~660 objects the
    standard library leaves at import (the pure-Python `datetime` classes `_datetime`
    replaces, enums' helpers), ~0.2 MB, and finding them walks every object, ~40 ms of a
    warm start's 0.5 s."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def serve(
    settings: Settings,
    locks: list[Lock],
    *,
    explicit_port: bool,
    started: float,
    token: str,
    prestarted: Prestart | None = None,
) -> int:
    """Bind, build the app, serve until Ctrl+C or SIGTERM; the exit code."""
    with collector_paused():
        import uvicorn
        from uvicorn.lifespan.on import LifespanOn

        from ..api.request_log import escape_log_records
        from ..app import console_link, create_app, describe, on_pack_service
    escape_log_records(logging.getLogger())

    sock, port = choose_socket(settings.host, settings.port, explicit_port)
    if sock is None:
        say(f"  ✗ port {settings.port} is in use: stop what uses it, or pass another --port")
        return 1
    if port != settings.port and settings.port != 0:
        say(f"  ⚠ port {settings.port} is in use (another kindgi dev?): using {port}")
    try:
        phase = time.perf_counter()
        with collector_paused():
            app = create_app(
                settings,
                progress=banner.phase_line,
                pack_service_token=token,
                prestarted=prestarted,
                route_table=settings.dev_dir / "routes.json",
            )
        settle_collector()
        banner.phase_line(
            f"store: {banner.relative(settings.database_path)}", time.perf_counter() - phase
        )
    except KindgiError as error:
        say(f"  ✗ {error.message}")
        return 1
    config = uvicorn.Config(
        app,
        log_level="error" if settings.log_level == "error" else "warning",
        lifespan="on",
        ws="none",  # no route takes a WebSocket: "auto" imported the websockets package (~5 MB)
        access_log=False,
        proxy_headers=False,  # nothing proxies kindgi dev: X-Forwarded-* change no request
        timeout_graceful_shutdown=10,
        timeout_keep_alive=5,
    )
    server = uvicorn.Server(config)
    stopping: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: stopping.append(number))
    api_url = f"http://{_url_host(settings.host)}:{port}"

    async def main() -> bool:
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not serving.done():
            await asyncio.sleep(0.005)
        if serving.done():
            return False
        write_rc(settings.rc_path, _rc_fields(api_url, describe(app)))
        for lock in locks:
            lock.note_url(api_url)
        on_pack_service(app, lambda: write_rc(settings.rc_path, _rc_fields(api_url, describe(app))))
        banner.ready(
            settings,
            describe(app),
            api_url,
            time.perf_counter() - started,
            console_link(app, api_url),
        )
        if not settings.watch:
            server.should_exit = True
        await serving
        lifespan = server.lifespan
        if (
            server.force_exit
            and isinstance(lifespan, LifespanOn)
            and not lifespan.shutdown_event.is_set()
        ):
            # A second Ctrl+C makes uvicorn stop waiting for open connections, and skip the
            # app's shutdown too; that shutdown is quick and is what records the eval runs
            # in flight as interrupted and closes the store, so it still runs.
            await lifespan.shutdown()
        return True

    ok = asyncio.run(main())
    if ok:
        say("  Stopping kindgi dev... stopped.")
    return 0 if ok else 1


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _rc_fields(api_url: str, instance: Instance) -> dict[str, str | int]:
    """The six fields the real CLI writes."""
    fields: dict[str, str | int] = {
        "apiUrl": api_url,
        "token": instance.token,
        "tenantId": instance.tenant_id,
        "userId": instance.user_id,
    }
    if instance.pack_service_port:
        fields["packServicePort"] = instance.pack_service_port
    if instance.pack_service_token:
        fields["packServiceToken"] = instance.pack_service_token
    return fields
