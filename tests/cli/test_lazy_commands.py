"""`kindgi` imports a command's module only when that command runs: `kindgi dev` starts
without the API commands' modules, and an API command without `kindgi dev`'s runtime."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kindgi_dev.cli.main import COMMANDS

LOADED = """
import json, sys
import click
from kindgi_dev.cli.main import cli
with click.Context(cli, info_name="kindgi") as ctx:
    assert cli.get_command(ctx, sys.argv[1]) is not None
print(json.dumps(sorted(m for m in sys.modules if m.startswith("kindgi_dev."))))
"""


def loaded_for(command: str) -> set[str]:
    """The kindgi_dev modules imported once `kindgi` has resolved `command`."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, command], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def command_modules(loaded: set[str]) -> set[str]:
    names = {f"kindgi_dev.cli.{name.replace('-', '_')}" for name in COMMANDS}
    return names & loaded


def test_kindgi_dev_imports_no_other_command() -> None:
    loaded = loaded_for("dev")
    assert command_modules(loaded) == {"kindgi_dev.cli.dev"}
    assert "kindgi_dev.app" not in loaded  # the app is imported once the pack service spawned


@pytest.mark.parametrize("command", ["agents", "eval-runs", "init"])
def test_an_api_command_imports_neither_kindgi_dev_nor_its_app(command: str) -> None:
    loaded = loaded_for(command)
    assert f"kindgi_dev.cli.{command.replace('-', '_')}" in loaded
    assert not {"kindgi_dev.cli.dev", "kindgi_dev.app", "kindgi_dev.runtime.prestart"} & loaded


def test_every_command_is_listed_and_resolves() -> None:
    from click.testing import CliRunner

    from kindgi_dev.cli.main import cli

    shown = CliRunner().invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in shown
