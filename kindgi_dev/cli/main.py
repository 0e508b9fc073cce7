"""The `kindgi` command: `kindgi dev` and the API commands."""

from __future__ import annotations

import importlib
import sys

import click
from click.exceptions import NoArgsIsHelpError

from .. import __version__
from .empty_values import refuse_empty_values
from .nearest import nearest

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


class Commands(click.Group):
    """The root group: a command's module is imported when that command is asked for, so
    `kindgi dev` starts without importing the API commands (and they without the runtime)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, without importing any."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command of that name, its module imported the first time."""
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module = importlib.import_module(f"{__package__}.{cmd_name.replace('-', '_')}")
            command: click.Command = getattr(module, cmd_name.replace("-", "_"))
            refuse_empty_values(command)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)


@click.group(
    "kindgi",
    cls=Commands,
    help="kindgi — command-line interface for Kindgi™, with kindgi dev's local runtime.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__, "--version", message=f"kindgi dev %(version)s (Kindgi API {API_VERSION})"
)
def cli() -> None:
    """The root group."""


def unknown_word(args: list[str]) -> str | None:
    """What the real CLI says for a word that names no command (`Unknown command: …`) or no
    subcommand of its group (`Unknown subcommand "w" for kindgi g. Did you mean "x"?`), with
    the help of the group it was typed in; None when every word names one."""
    words = [arg for arg in args if not arg.startswith("-")]
    command: click.Command = cli
    path: list[str] = []
    with click.Context(cli, info_name="kindgi") as ctx:
        for word in words:
            if command is not cli and type(command) is not click.Group:
                return None  # a leaf, or a group that resolves its own words
            assert isinstance(command, click.Group)
            found = command.get_command(ctx, word)
            if found is None:
                if command is cli:
                    return f"Unknown command: {' '.join(args)}\n\n{ctx.get_help()}"
                names = [name for name, sub in command.commands.items() if sub.name == name]
                near = nearest(word, names)
                hint = f' Did you mean "{near}"?' if near else ""
                where = " ".join(path)
                return f'Unknown subcommand "{word}" for kindgi {where}.{hint}\n\n{ctx.get_help()}'
            command, path = found, [*path, word]
            ctx = click.Context(found, info_name=word, parent=ctx)
    return None


def main() -> None:
    """Console-script entry point: a bare group prints its help (exit 0); a usage error reads
    `Error: …` then `Usage: kindgi … --help` (exit 2), and a word that names no command says
    so with the nearest one, as the real CLI prints them."""
    unknown = unknown_word(sys.argv[1:])
    if unknown is not None:
        click.echo(unknown, err=True)
        sys.exit(2)
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
