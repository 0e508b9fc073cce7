"""Our CLI run in-process against a served app, as the CLI tests call it."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kindgi_dev.cli.main import cli, main


class Kindgi:
    """Runs `kindgi …` against one served app."""

    def __init__(self, url: str, token: str) -> None:
        self.target = ["--url", url, "--token", token]
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Result:
        return self.runner.invoke(cli, [*args, *self.target])

    def json(self, *args: str) -> Any:
        result = self(*args)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`kindgi …` as the shell runs it (`main`, its exit code), with what it printed."""
    old = sys.argv
    sys.argv = ["kindgi", *args]
    try:
        with pytest.raises(SystemExit) as exited:
            main()
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return int(exited.value.code or 0), out.out, out.err
