"""`--flag=` typed empty is a usage error on every command, as the real CLI says it; apart
from `command` so that `kindgi dev` starts without importing the API client (httpx)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

EMPTY_ALLOWED = frozenset({"pointer"})
"""Options whose empty value means something: `--pointer=""` is the whole output."""


def refuse_empty_values(command: click.Command) -> None:
    """Make `--flag=` (an empty value typed on the command line) a usage error, as the real
    CLI's `Error: --flag takes a value`, on every command under `command`."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            refuse_empty_values(sub)
        return
    for param in command.params:
        if (
            isinstance(param, click.Option)
            and not param.is_flag
            and param.name not in EMPTY_ALLOWED
        ):
            param.process_value = _non_empty(param, param.process_value)  # type: ignore[method-assign]


def _non_empty(param: click.Option, then: Callable[[click.Context, object], object]) -> Any:
    """`process_value` refusing "" typed on the command line before the type converts it
    (a path type would take "" as the current folder). Untyped: click declares `process_value`
    a method, which an instance's function can replace only untyped."""

    def process_value(ctx: click.Context, value: object) -> object:
        given = value if isinstance(value, list | tuple) else (value,)
        typed = ctx.get_parameter_source(str(param.name)) is ParameterSource.COMMANDLINE
        if typed and "" in given:
            raise click.UsageError(f"{max(param.opts, key=len)} takes a value", ctx=ctx)
        return then(ctx, value)

    return process_value
