"""`kindgi eval-runs start --reuse`: the run takes the answers an earlier run asked to reuse
gave of the same agent content, and says how many; without the flag it replays every case."""

from __future__ import annotations

from pathlib import Path

from cli_runner import Kindgi
from version_pack import AGENT, SUITE, over_http


def test_reuse_takes_an_earlier_runs_answers_and_counts_them(tmp_path: Path) -> None:
    with over_http(tmp_path) as (url, ctx, project):
        kindgi = Kindgi(url, ctx.identity.token)
        args = ("eval-runs", "start", SUITE, f"--project={project}", f"--agent={AGENT}",
                "--agent-version=0.3.0", "--repetitions=2", "--wait")  # fmt: skip
        first = kindgi.json(*args, "--reuse")
        reused = kindgi.json(*args, "--reuse")
        again = kindgi.json(*args)
    cases = first["result"]["summary"]["cases"]
    assert cases > 0
    assert first["result"]["summary"]["reusedAnswers"] == 0  # nothing kept before it
    assert reused["comparison"]["reuse"] is True
    assert reused["result"]["summary"]["reusedAnswers"] == cases * 2
    assert reused["result"]["summary"]["metrics"] == first["result"]["summary"]["metrics"]
    assert "reusedAnswers" not in again["result"]["summary"]
    assert "reuse" not in again["comparison"]
