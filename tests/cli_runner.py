"""Our CLI run in-process against a served app, as the CLI tests call it."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner, Result

from kindgi_dev.cli.main import cli


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
