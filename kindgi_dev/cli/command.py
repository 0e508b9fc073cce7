"""`api_command`: the global flags every API command takes, and how it reports failures."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from ..domain.json import JSON
from ..domain.narrow import objects_of
from .answers import member
from .config import resolve
from .http import Api, ApiError
from .output import Column, Format, Rows

GLOBAL_OPTIONS = [
    click.option("--url", help="API URL (beats KINDGI_API_URL and .kindgirc.json)."),
    click.option("--token", help="API token (beats KINDGI_API_TOKEN and .kindgirc.json)."),
    click.option("--hosted", is_flag=True, help="Ignore a kindgi dev .kindgirc.json here."),
    click.option("--verbose", "-v", is_flag=True, help="The whole error body on failure."),
    click.option("--json", "as_json", is_flag=True, help="Pretty JSON (the default)."),
    click.option("--table", is_flag=True, help="A table, for commands that have columns."),
    click.option("--raw", is_flag=True, help="One-line JSON."),
    click.option("--quiet", is_flag=True, help="Nothing on stdout; the exit code only."),
]


Command = TypeVar("Command", bound=Callable[..., object])
"""A command's function, as a decorator that adds options takes and gives it back."""


class ExitWith(Exception):
    """An answer a command prints before it exits non-zero, with lines for stderr (a gate
    check that failed prints its answer, then why)."""

    def __init__(self, body: JSON, code: int, notes: Sequence[str] = ()) -> None:
        super().__init__(*notes)
        self.body, self.code, self.notes = body, code, notes


def global_options(function: Command) -> Command:
    """Add the global flags to a command."""
    for option in reversed(GLOBAL_OPTIONS):
        function = option(function)
    return function


def api_command(
    group: click.Group,
    name: str,
    columns: Sequence[Column] | None = None,
    rows: Rows | None = None,
    **settings: Any,
) -> Callable[[Callable[..., JSON]], click.Command]:
    """A command that calls the API with `api` and prints what the function returns
    (`rows` turns an answer that is no list page into `--table`'s rows). Untyped: `settings`
    are click's own `command()` keywords, which click types so."""

    def decorate(function: Callable[..., JSON]) -> click.Command:
        @functools.wraps(function)
        def run(
            url: str | None,
            token: str | None,
            hosted: bool,
            verbose: bool,
            as_json: bool,
            table: bool,
            raw: bool,
            quiet: bool,
            **kwargs: object,
        ) -> None:
            output = Format(quiet=quiet, raw=raw, table=table)
            api = Api(lambda: resolve(url, token, hosted=hosted))
            try:
                result = function(api, **kwargs)
            except ApiError as error:
                fail(error, verbose)
            except ExitWith as done:
                output.emit(done.body, columns)
                for note in done.notes:
                    click.echo(note, err=True)
                sys.exit(done.code)
            finally:
                api.close()
            if result is not None:
                output.emit(result, columns, rows)

        return group.command(name, **settings)(global_options(run))

    return decorate


def fail(error: ApiError, verbose: bool = False) -> None:
    """Print `Error [tag]: message` (and issue lines) on stderr and exit 1."""
    click.echo(f"Error [{error.tag}]: {error.message}", err=True)
    envelope = member(error.body, "error")
    for issue in objects_of(envelope.get("issues") or member(envelope, "details").get("issues")):
        click.echo(f"  ✗ {issue.get('path') or '<root>'}: {issue.get('message')}", err=True)
    if verbose and error.body is not None:
        click.echo(json.dumps(error.body, indent=2), err=True)
    sys.exit(1)


def json_arg(text: str, flag: str) -> JSON:
    """A JSON flag's value: inline JSON or `@path`; a usage error when malformed."""
    try:
        if text.startswith("@"):
            with open(text[1:], encoding="utf-8") as handle:
                read: JSON = json.load(handle)
                return read
        given: JSON = json.loads(text)
        return given
    except (OSError, ValueError) as error:
        raise click.UsageError(f"Malformed JSON input for {flag}: {error}") from None
