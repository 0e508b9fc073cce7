"""The 0.2, 0.3 and 0.4 pages' Python scripts, run against the real `kindgi dev`.

Each script is the page's own, as a user saves it; the 0.4 one imports `Kindgi` from
`kindgi_dev.client` (the pinned official client has no `agents.test_set`), its only
changed line. Each must print what its page prints.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from devserver import DevServer, clean_env, copy_example, start
from test_tutorial import AGENT, NEW_INSTRUCTIONS, QUESTIONS, save_version, wait_for

pytestmark = [pytest.mark.slow]

BUILD_TEST_CASES = """\
import sys

from kindgi.client import Kindgi

kindgi = Kindgi()  # KINDGI_API_URL, KINDGI_API_TOKEN, or the running kindgi dev
project_id = sys.argv[1]

# Version 1.0.0 of the test set: copies of the agent's judged runs.
built = kindgi.eval_suites.build_from_judgments(
    "acme.article-picks",
    version="1.0.0",
    project_id=project_id,
    agent_id="acme-ops.article-picker",
)
print(f"{built.case_count} cases")

cases = kindgi.eval_suites.list_cases("acme.article-picks", "1.0.0")
for case in cases.data:
    print(case.input, [f"{item.key} {item.yes} yes, {item.no} no" for item in case.items])
"""
BUILT = """\
3 cases
I was charged twice for one order. How do I get my money back? ['kb-201 1 yes, 0 no', \
'kb-203 0 yes, 1 no', 'kb-202 0 yes, 1 no']
I forgot my password and can't sign in. ['kb-101 1 yes, 0 no', 'kb-102 0 yes, 1 no', \
'kb-103 0 yes, 1 no']
My package hasn't arrived yet. Where is it? ['kb-301 1 yes, 0 no', 'kb-303 0 yes, 1 no', \
'kb-201 0 yes, 1 no']
"""
COMPARE = """\
import sys
import time

from kindgi.client import Kindgi, comparison_of

kindgi = Kindgi()  # KINDGI_API_URL, KINDGI_API_TOKEN, or the running kindgi dev
project_id = sys.argv[1]

# Replay version 0.2.0 on each case of the test set.
started = kindgi.eval_runs.start(
    "acme.article-picks",
    project_id=project_id,
    agent_ref={"agent_id": "acme-ops.article-picker", "version": "0.2.0"},
)

run = kindgi.eval_runs.get(str(started.run_id))
while run.status in ("pending", "running"):
    time.sleep(2)
    run = kindgi.eval_runs.get(str(started.run_id))

comparison = comparison_of(run)  # None until it's finished
if comparison is not None:
    metrics = comparison.summary.metrics
    for name, metric in [
        ("judgedCoverage", metrics.judged_coverage),
        ("weightedYesShare", metrics.weighted_yes_share),
        ("weightedPrecisionAtK", metrics.weighted_precision_at_k),
    ]:
        print(f"{name}: {metric.baseline} → {metric.candidate}")
"""
COMPARED = """\
judgedCoverage: 0.75 → 0.5
weightedYesShare: 0.3333333333333333 → 1.0
weightedPrecisionAtK: 0.3333333333333333 → 1.0
"""
TEST_SET = """\
import sys

from kindgi_dev.client import Kindgi

kindgi = Kindgi()  # KINDGI_API_URL, KINDGI_API_TOKEN, or the running kindgi dev
project_id = sys.argv[1]
agent_id = "acme-ops.article-picker"

test_set = kindgi.agents.test_set.get(agent_id, project_id=project_id)
print(f"{test_set.cases.active} cases, {test_set.cases.retired} retired")

cases = kindgi.agents.test_set.list_cases(agent_id, project_id=project_id)
for case in cases.data:
    print(case.kind, [f"{item.key} {item.verdict}" for item in case.expect.items or []])
"""
LISTED = """\
3 cases, 0 retired
correction ['kb-201 right', 'kb-203 wrong', 'kb-202 wrong']
correction ['kb-101 right', 'kb-102 wrong', 'kb-103 wrong']
correction ['kb-301 right', 'kb-303 wrong', 'kb-201 wrong']
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    running = start(copy_example(tmp_path_factory.mktemp("scripts") / "article-picker"))
    yield running
    running.stop()


def script(server: DevServer, name: str, text: str, project: str) -> str:
    """Save a page's script in the pack folder and run it there with the project's id."""
    (server.pack / name).write_text(text)
    done = subprocess.run([sys.executable, name, project], cwd=server.pack, env=clean_env(),
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_pages_scripts_print_what_the_pages_print(server: DevServer) -> None:
    with server.client() as http:
        project = http.get("/v1/projects/default").json()["id"]
        password, charged, package = QUESTIONS
        for question in (package, password, charged):  # charged corrected last: newest first
            body = {"agent": AGENT, "input": {"userMessage": question}}
            run_id = http.post("/v1/runs", json=body).json()["id"]
            items = [{"key": a, "pointer": f"/output/articles/{n}", "rank": n,
                      "verdict": "right" if n == 0 else "wrong"}
                     for n, a in enumerate(QUESTIONS[question])]  # fmt: skip
            made = http.post("/v1/corrections", json={"runId": run_id, "items": items})
            assert made.status_code == 201, made.text

    assert script(server, "build_test_cases.py", BUILD_TEST_CASES, project) == BUILT
    save_version(server.pack, "0.2.0", NEW_INSTRUCTIONS)
    with server.client() as http:
        wait_for(lambda: [v["version"] for v in http.get(f"/v1/agents/{AGENT}/versions").json()
                          ["data"]] == ["0.1.0", "0.2.0"], timeout=60)  # fmt: skip
    assert script(server, "compare.py", COMPARE, project) == COMPARED
    assert script(server, "test_set.py", TEST_SET, project) == LISTED
