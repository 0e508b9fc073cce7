"""The `kindgi` command: `kindgi dev` and the API commands."""

from __future__ import annotations

import importlib

import click

from .. import __version__

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
)
"""Modules of `kindgi_dev.cli` that each define the command or group of that name."""


@click.group(
    "kindgi",
    help="kindgi — command-line interface for Kindgi™, with kindgi dev's local runtime.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "--version", message="%(version)s")
def cli() -> None:
    """The root group."""


for _name in COMMANDS:
    _module = importlib.import_module(f"{__package__}.{_name.replace('-', '_')}")
    cli.add_command(getattr(_module, _name.replace("-", "_")))


def main() -> None:
    """Console-script entry point."""
    cli()
