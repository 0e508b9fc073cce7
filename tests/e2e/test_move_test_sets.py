"""Test sets moved between two real `kindgi dev`s, A playing the deployed runtime.

A's tutorial runs are corrected and frozen; B pulls that version and tries its 0.2.0 on
it (the spec's numbers); then B pushes its own frozen version to A, which reads it back
byte for byte.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from devserver import copy_example, kindgi_json, start
from examples_committed import CONCISE, QUESTIONS

pytestmark = pytest.mark.slow

AGENT = "acme-ops.article-picker"


def correct_run(http: httpx.Client, question: str) -> None:
    """A run of the question, corrected as the tutorial does: the first article right."""
    run = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}}).json()
    picked = [article["id"] for article in run["output"]["output"]["articles"]]
    assert picked == QUESTIONS[question][: len(picked)]
    items = [{"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
              "verdict": "right" if rank == 0 else "wrong"}
             for rank, a in enumerate(picked)]  # fmt: skip
    assert http.post("/v1/corrections", json={"runId": run["id"], "items": items}).is_success


def all_cases(http: httpx.Client, test_set_id: str, version: str) -> list[Any]:
    path = f"/v1/test-sets/{test_set_id}/versions/{version}/cases"
    cases: list[Any] = []
    params: dict[str, Any] = {"limit": 2}
    while True:
        page = http.get(path, params=params).json()
        cases += page["data"]
        if not page["hasMore"]:
            return cases
        params["cursor"] = page["nextCursor"]


def save_concise_version(pack: Path, http: httpx.Client) -> None:
    """Save 0.2.0 as the tutorial does, and wait until the server serves it."""
    path = pack / "agents" / "article_picker.py"
    text = path.read_text().replace('version="0.1.0"', 'version="0.2.0"')
    start_at = text.index("instructions=(")
    end_at = text.index("),\n", start_at) + 3
    path.write_text(text[:start_at] + f"instructions={CONCISE!r},\n" + text[end_at:])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        versions = http.get(f"/v1/agents/{AGENT}/versions").json()["data"]
        if [v["version"] for v in versions] == ["0.1.0", "0.2.0"]:
            return
        time.sleep(0.1)
    raise AssertionError("0.2.0 was not served")


def test_a_test_set_moves_both_ways_and_scores_the_same(tmp_path: Path) -> None:
    a = start(copy_example(tmp_path / "a"), timeout=90)
    b = start(copy_example(tmp_path / "b"), timeout=90)
    try:
        with a.client() as on_a, b.client() as on_b:
            for question in QUESTIONS:
                correct_run(on_a, question)
            frozen = on_a.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
            assert frozen["version"] == "1.0.0"
            there = f"{frozen['testSetId']}@1.0.0"

            pulled = kindgi_json(
                b,
                "test-sets",
                "pull",
                there,
                f"--from={a.url}",
                env={"KINDGI_REMOTE_TOKEN": a.token},
            )
            assert (pulled["caseCount"], pulled["pulled"]) == (3, True)
            assert pulled["source"]["url"] == a.url
            assert all_cases(on_b, frozen["testSetId"], "1.0.0") == all_cases(
                on_a, frozen["testSetId"], "1.0.0"
            )

            save_concise_version(b.pack, on_b)
            project_b = on_b.get("/v1/projects/default").json()["id"]
            tried = kindgi_json(
                b,
                "eval-runs",
                "start",
                frozen["testSetId"],
                f"--project={project_b}",
                f"--agent={AGENT}",
                "--agent-version=0.2.0",
                "--wait",
            )
            assert tried["status"] == "completed"
            assert tried["frozenVersion"] == {"testSetId": frozen["testSetId"], "version": "1.0.0"}
            metrics = tried["result"]["summary"]["metrics"]
            assert metrics["weightedYesShare"]["baseline"] == pytest.approx(1 / 3)
            assert metrics["weightedYesShare"]["candidate"] == 1
            assert metrics["judgedCoverage"]["baseline"] == 0.75
            assert metrics["judgedCoverage"]["candidate"] == 0.5

            correct_run(on_b, "My package hasn't arrived yet. Where is it?")
            mine = on_b.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
            here = f"{mine['testSetId']}@{mine['version']}"
            plan = kindgi_json(b, "test-sets", "push", here, f"--to={a.url}", "--dry-run")
            assert (plan["dryRun"], plan["cases"]) == (True, 1)
            assert plan["agents"] == [{"agentId": AGENT, "versions": ["0.2.0"]}]
            assert on_a.get(f"/v1/test-sets/{mine['testSetId']}").status_code == 404
            pushed = kindgi_json(
                b, "test-sets", "push", here, f"--to={a.url}", f"--token={a.token}"
            )
            assert (pushed["published"], pushed["bytes"]) == (True, plan["bytes"])
            mine_on_b = all_cases(on_b, mine["testSetId"], mine["version"])
            mine_on_a = all_cases(on_a, mine["testSetId"], mine["version"])
            assert json.dumps(mine_on_a) == json.dumps(mine_on_b)
    finally:
        a.stop()
        b.stop()
