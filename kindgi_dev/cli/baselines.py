"""`--baseline=recorded|live|<agentId>@<version>`, with `--baseline-project` and
`--baseline-segment`, spelled and refused as the real CLI does; and what a dry run says of
each side's replays.
"""

from __future__ import annotations

from typing import TypedDict

import click

from ..domain.json import JSON, JSONObject
from .answers import member
from .command import Command
from .runs import segment_list


def spelled(
    text: str | None, project: str | None = None, segments: list[JSON] | None = None
) -> JSON:
    """The request's `baseline` for `--baseline` (None when it isn't given): `recorded`, the
    version live in a project or segment path, or `<id>@<version>`, split on the last `@`.
    `ValueError` with the real CLI's words when the flags don't go together."""
    if text != "live" and (project is not None or segments):
        raise ValueError("--baseline-project and --baseline-segment need --baseline=live")
    if segments and project is None:
        raise ValueError(
            "--baseline-segment is a segment path in a project: it needs --baseline-project"
        )
    if text is None or text == "recorded":
        return text
    if text == "live":
        scope: JSONObject = {}
        if project is not None:
            scope["projectId"] = project
        if segments:
            scope["segments"] = segments
        return {"live": scope}
    named, at, version = text.rpartition("@")
    if not at or not named or not version:
        raise ValueError(f'--baseline must be recorded, live or <agentId>@<version>, got "{text}"')
    return {"agentId": named, "version": version}


class BaselineFlags(TypedDict):
    """What `baseline_options` adds to a command's keywords."""

    baseline: str | None
    baseline_project: str | None
    baseline_segment: tuple[str, ...]


def baseline_options(function: Command) -> Command:
    """The flags that say what the version is compared with."""
    options = [
        click.option(
            "--baseline",
            metavar="recorded|live|<agentId>@<version>",
            help="Compare with the recorded runs (default), another version replayed the "
            "same way, or the live one.",
        ),
        click.option("--baseline-project", help="With --baseline=live: the project it is live in."),
        click.option(
            "--baseline-segment",
            multiple=True,
            metavar="<key>:<value>",
            help="With --baseline=live and --baseline-project: a segment path, coarse to fine.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def baseline_of(options: BaselineFlags) -> JSON:
    """The `--baseline` flags as the request's `baseline` (None without them)."""
    segments = segment_list(options.get("baseline_segment") or (), "--baseline-segment")
    try:
        return spelled(options.get("baseline"), options.get("baseline_project"), segments)
    except ValueError as error:
        raise click.UsageError(str(error)) from None


def dry_run_note(started: JSONObject) -> str | None:
    """What a dry run would cost, said before anything runs: each side's replays."""
    replays = member(member(started, "dryRunPreview"), "replays")
    if not replays:
        return None
    tried, baseline = replays["candidate"], replays["baseline"]
    if not isinstance(tried, int) or not isinstance(baseline, int):
        return None
    each = "each one agent turn or flow run, with one model call or more"
    if not baseline:
        return f"Dry run: it would replay the version {tried} times ({each}); nothing ran."
    return (
        f"Dry run: it would make {tried + baseline} replays, {tried} of the version and "
        f"{baseline} of the baseline ({each}); nothing ran."
    )
