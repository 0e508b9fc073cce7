"""`--baseline=live|<agentId>@<version>` (with `--baseline-project`, `--baseline-segment`) on
`kindgi eval-runs start` and `kindgi agents test-set run`, as the real CLI spells them, and a
dry run that counts each side's replays before anything runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import Kindgi
from tables import every_row
from version_pack import AGENT, GONE, SUITE, over_http

from kindgi_dev.services.context import Context


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kindgi, Context, str]]:
    with over_http(tmp_path_factory.mktemp("baseline-flags")) as (url, ctx, project):
        yield Kindgi(url, ctx.identity.token), ctx, project


def start(kindgi: Kindgi, project: str, *more: str) -> Any:
    return kindgi("eval-runs", "start", SUITE, f"--project={project}", f"--agent={AGENT}",
                  "--agent-version=0.3.0", *more)  # fmt: skip


def test_a_dry_run_says_how_many_replays_each_side_makes(served: Any) -> None:
    kindgi, _, project = served
    beside = start(kindgi, project, f"--baseline={AGENT}@0.2.0", "--repetitions=2", "--dry-run")
    alone = start(kindgi, project, "--dry-run")
    assert (beside.exit_code, alone.exit_code) == (0, 0), beside.output
    assert beside.stderr == (
        "Dry run: it would make 12 replays, 6 of the version and 6 of the baseline (each one "
        "agent turn or flow run, with one model call or more); nothing ran.\n"
    )
    assert alone.stderr == (
        "Dry run: it would replay the version 3 times (each one agent turn or flow run, with "
        "one model call or more); nothing ran.\n"
    )
    assert json.loads(beside.stdout)["dryRunPreview"]["replays"] == {"candidate": 6, "baseline": 6}


def test_a_version_baseline_and_the_live_one(served: Any) -> None:
    kindgi, _, project = served
    named = kindgi.json("eval-runs", "start", SUITE, f"--project={project}", f"--agent={AGENT}",
                        "--agent-version=0.3.0", f"--baseline={AGENT}@0.2.0", "--wait")  # fmt: skip
    live = kindgi.json("agents", "test-set", "run", f"--agent={AGENT}", "--agent-version=0.2.0",
                       f"--project={project}", "--baseline=live",
                       f"--baseline-project={project}", "--wait")  # fmt: skip
    assert named["comparison"]["baseline"] == {"agentId": AGENT, "version": "0.2.0"}
    assert named["result"]["summary"]["baseline"]["version"] == "0.2.0"
    share = named["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (1, 0.5)
    assert live["comparison"]["baseline"] == {"live": {"projectId": project}}
    assert live["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.3.0", "via": "live",
        "liveScope": {"projectId": project}, "liveSource": "latest-registered",
    }  # fmt: skip


USAGE = [
    (("--baseline-project=p",), "--baseline-project and --baseline-segment need --baseline=live"),
    (("--baseline=recorded", "--baseline-segment=company:acme"),
     "--baseline-project and --baseline-segment need --baseline=live"),
    (("--baseline=live", "--baseline-segment=company:acme"),
     "--baseline-segment is a segment path in a project: it needs --baseline-project"),
    (("--baseline=live", "--baseline-project=p", "--baseline-segment=company"),
     '--baseline-segment must be key:value, got "company"'),
    (("--baseline=0.2.0",),
     '--baseline must be recorded, live or <agentId>@<version>, got "0.2.0"'),
    ((f"--baseline={AGENT}@",),
     f'--baseline must be recorded, live or <agentId>@<version>, got "{AGENT}@"'),
]  # fmt: skip


@pytest.mark.parametrize(("flags", "message"), USAGE)
def test_flags_that_dont_go_together_are_a_usage_error(
    served: Any, flags: tuple[str, ...], message: str
) -> None:
    kindgi, ctx, project = served
    before = every_row(Path(ctx.db.path))
    result = start(kindgi, project, *flags)
    assert result.exit_code == 2
    assert f"Error: {message}" in result.stderr
    assert every_row(Path(ctx.db.path)) == before


def test_a_baseline_whose_tool_is_gone_is_refused_with_its_words(served: Any) -> None:
    kindgi, ctx, project = served
    before = every_row(Path(ctx.db.path))
    result = start(kindgi, project, f"--baseline={AGENT}@0.2.5", "--wait")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error [version-not-runnable]: {GONE}")
    assert every_row(Path(ctx.db.path)) == before
