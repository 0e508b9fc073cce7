"""The `kindgi` command: `kindgi dev` and the API commands."""

from __future__ import annotations

import importlib
import sys

import click
from click.exceptions import NoArgsIsHelpError

from .. import __version__
from .command import refuse_empty_values

API_VERSION = "0.1.0"
"""The Kindgi API version (`info.version` of kindgi-cli 0.1.10's openapi.json) spoken here."""

COMMANDS = (
    "dev",
    "init",
    "projects",
    "agents",
    "tools",
    "flows",
    "runs",
    "conversations",
    "judgments",
    "judge-classes",
    "corrections",
    "eval-suites",
    "test-sets",
    "eval-runs",
    "gate-policies",
    "approvals",
    "tokens",
)
"""Modules of `kindgi_dev.cli` that each define the command or group of that name."""


@click.group(
    "kindgi",
    help="kindgi — command-line interface for Kindgi™, with kindgi dev's local runtime.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__, "--version", message=f"kindgi dev %(version)s (Kindgi API {API_VERSION})"
)
def cli() -> None:
    """The root group."""


for _name in COMMANDS:
    _module = importlib.import_module(f"{__package__}.{_name.replace('-', '_')}")
    cli.add_command(getattr(_module, _name.replace("-", "_")))
refuse_empty_values(cli)


def main() -> None:
    """Console-script entry point: a bare group prints its help (exit 0); a usage error reads
    `Error: …` then `Usage: kindgi … --help` (exit 2), as the real CLI prints them."""
    try:
        code = cli.main(prog_name="kindgi", standalone_mode=False)
    except NoArgsIsHelpError as bare:
        if bare.ctx is not None:
            click.echo(bare.ctx.get_help())
        sys.exit(0)
    except click.UsageError as error:
        path = error.ctx.command_path if error.ctx is not None else "kindgi"
        click.echo(f"Error: {error.format_message()}", err=True)
        click.echo(f"Usage: {path} --help", err=True)
        sys.exit(2)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
