"""What `kindgi dev` prints: phase lines with their times, the ready banner, a running notice."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..settings import Settings
from .devstate import Holder

if TYPE_CHECKING:
    from ..app import Instance

RULE = "═" * 40


def duration(seconds: float) -> str:
    """`0.4s` under 10 s, `12s` under a minute, else `1m 05s` (as the real CLI shows)."""
    if seconds < 10:
        return f"{seconds:.1f}s" if seconds >= 0.1 else f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.0f}s"
    return f"{int(seconds // 60)}m {int(seconds % 60):02d}s"


def phase_line(label: str, seconds: float) -> None:
    """`  ✓ <what> in <time>` on stderr."""
    click.echo(f"  ✓ {label} in {duration(seconds)}", err=True)


def relative(path: Path) -> str:
    """A path relative to the current folder when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def ready(
    settings: Settings, instance: Instance, api_url: str, seconds: float, console: str
) -> None:
    """The ready banner: the API, the console's login link, the project, and a command to try."""
    token = instance.token
    agents = instance.agent_ids
    lines = [
        f"  ✓ kindgi dev is serving at {api_url} (started in {duration(seconds)})",
        "",
        RULE,
        "  ✓ Kindgi is up",
        RULE,
        f"  API        {api_url}   (.kindgirc.json points here)",
        f"  Console    {console}",
        "             (this link logs one browser in, once)",
        f"  Project    {instance.project_name} · {instance.project_id}",
        f"  Tenant     {instance.tenant_id}",
        f"  Token      {token[:12]}…  (full token in .kindgirc.json)",
        f"  Models     {instance.models_summary or 'none'}",
        *_live_lines(instance.live),
        f"  Data       {relative(settings.database_path)}",
        "",
    ]
    if agents:
        lines += [
            "  Try it (from another terminal, cd to the pack dir first):",
            f'    kindgi runs start --agent={agents[0]} --input=\'{{"userMessage":"hi"}}\'',
        ]
    else:
        lines.append("  Try it:  kindgi projects get-default")
    if settings.watch:
        lines += [f"  Watching {settings.pack_dir}", "  Ctrl+C to stop."]
    else:
        lines.append("  --no-watch: single boot + register cycle complete.")
    click.echo("\n".join(lines), err=True)


def _live_lines(live: tuple[str, ...]) -> list[str]:
    """`  Live       <agent> <version> · <scope>`, one line per pin (none when nothing is pinned:
    runs get each agent's latest version)."""
    return [f"  {'Live' if n == 0 else '':<10} {line}" for n, line in enumerate(live)]


def already_running(holder: Holder, database: Path) -> None:
    """What a second `kindgi dev` on the same pack or database says before it exits 3."""
    since = holder.taken_at[11:16] if len(holder.taken_at) >= 16 else holder.taken_at
    where = f" in {holder.pack_dir}" if holder.pack_dir else ""
    lines = [
        f"kindgi dev: kindgi dev is already running on {relative(database)}{where} "
        f"(pid {holder.pid}, since {since}). One database takes one kindgi dev."
    ]
    if holder.api_url:
        lines.append(f"  API      {holder.api_url}   (its .kindgirc.json points here)")
    else:
        lines.append("  It is still starting.")
    lines.append(
        "  It reloads on every save, so a second one isn't needed. To restart it, "
        f"press Ctrl+C there, or run: kill {holder.pid}. For a second instance, pass "
        "--data-dir=<another folder>."
    )
    click.echo("\n".join(lines), err=True)
