"""Issue 24 against the real `kindgi dev` on the example pack: two versions compared on the
same cases, a baseline whose pinned tool version is gone, and a flow's agent step swapped to
an older agent version.

0.2.0 keeps only the article that answers; 0.3.0 answers with two. With the tutorial's
corrected runs, 0.3.0 against 0.2.0 gives, metric by metric, 0.2.0's numbers against the
recorded runs as its baseline and 0.3.0's as its candidate.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from contract_check import contract_summary, problems
from devserver import DevServer, kindgi, kindgi_json
from examples_committed import CONCISE, QUESTIONS
from kindgi.client import Kindgi, comparison_of
from kindgi.client import _models as models
from tables import every_row

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

AGENT = "acme-ops.article-picker"
SEARCH = "acme-ops.search-articles"
SUITE = "acme.article-picks"
PICK = "acme-ops.pick-with-agent"
TWO = (
    "Call acme-ops.search-articles with the customer's question. Answer with the two most "
    "relevant articles."
)
METRICS = ("weightedYesShare", "judgedCoverage", "weightedPrecisionAtK")
EXTENSIONS = {"summary": ("baselineReplays",),
              "baseline": ("flowId", "liveSource"), "metric": ("baselineSpread",)}  # fmt: skip
FLOW = '''"""One agent step: the article picker at its latest version, its answer the output."""

from kindgi import Flow

pick_with_agent = Flow(
    id="acme-ops.pick-with-agent",
    version="0.1.0",
    name="Pick with the agent",
    nodes=[{"id": "pick", "kind": "agent", "ref": "acme-ops.article-picker",
            "inputMapping": {"userMessage": {"path": "runInput.question"}}}],
    edges=[{"id": "in", "from": "$start", "to": "pick"},
           {"id": "out", "from": "pick", "to": "$end"}],
    output={"mapping": {"output": {"path": "nodeOutputs.pick"}}},
)
'''


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"not true within {timeout} s")


def save_agent(server: DevServer, version: str, instructions: str) -> None:
    """Save the agent file at `version` with `instructions`, and wait until it registered."""
    path = server.pack / "agents" / "article_picker.py"
    text = re.sub(r'version="[^"]+"', f'version="{version}"', path.read_text(), count=1)
    text = re.sub(r"instructions=(\(.*?\)|\".*?\"|'.*?'),\n", f"instructions={instructions!r},\n",
                  text, count=1, flags=re.DOTALL)  # fmt: skip
    path.write_text(text)
    client = Kindgi(base_url=server.url, token=server.token)
    wait_for(lambda: version in [v.version for v in client.agents.list_versions(AGENT).data])


def corrected(server: DevServer, runs: dict[str, list[str]]) -> None:
    """Each run's first article marked right and the others wrong, as the tutorial does."""
    for run_id, articles in runs.items():
        for rank, article in enumerate(articles):
            kindgi(
                server,
                "corrections",
                "add",
                f"--run={run_id}",
                f"--item={article}",
                f"--pointer=/output/articles/{rank}",
                f"--rank={rank}",
                "--yes" if rank == 0 else "--no",
            )


def tutorial(server: DevServer) -> str:
    """The tutorial's runs of 0.1.0, corrected and built into `SUITE`; the project's id."""
    client = Kindgi(base_url=server.url, token=server.token)
    runs = {}
    for question, expected in QUESTIONS.items():
        run = client.runs.start(agent=AGENT, input={"userMessage": question})
        assert [a["id"] for a in run.output["output"]["articles"]] == expected
        runs[str(run.id)] = expected
    corrected(server, runs)
    project = str(kindgi_json(server, "projects", "get-default")["id"])
    kindgi_json(
        server,
        "eval-suites",
        "from-judgments",
        SUITE,
        "--suite-version=1.0.0",
        f"--project={project}",
        f"--agent={AGENT}",
    )
    return project


def tried(server: DevServer, project: str, version: str, *more: str) -> Any:
    return kindgi_json(
        server,
        "eval-runs",
        "start",
        SUITE,
        f"--project={project}",
        f"--agent={AGENT}",
        f"--agent-version={version}",
        *more,
        "--wait",
    )


def without(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in names}


def strict_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without kindgi dev's documented extensions (docs/api.md), #25's and
    these, as a strict reader of the contract sees it."""
    found = contract_summary(without(summary, EXTENSIONS["summary"]))
    metrics = {name: without(m, EXTENSIONS["metric"]) for name, m in found["metrics"].items()}
    baseline = without(found["baseline"], EXTENSIONS["baseline"])
    return {**found, "metrics": metrics, "baseline": baseline}


def test_two_versions_on_the_same_cases(server: DevServer) -> None:
    project = tutorial(server)
    save_agent(server, "0.2.0", CONCISE)
    save_agent(server, "0.3.0", TWO)
    older = tried(server, project, "0.2.0")
    newer = tried(server, project, "0.3.0")
    both = tried(server, project, "0.3.0", f"--baseline={AGENT}@0.2.0")
    for name in METRICS:
        paired = both["result"]["summary"]["metrics"][name]
        assert paired["baseline"] == older["result"]["summary"]["metrics"][name]["candidate"]
        assert paired["candidate"] == newer["result"]["summary"]["metrics"][name]["candidate"]
        assert paired["baselineN"] == older["result"]["summary"]["metrics"][name]["n"]
    share = both["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"], share["delta"]) == (1, 0.5, -0.5)
    assert both["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.2.0", "via": "explicit"}  # fmt: skip
    by_case = {c["caseId"]: c for c in older["result"]["perCase"]}
    for case in both["result"]["perCase"]:
        was = by_case[case["caseId"]]
        side = case["baselineReplay"]
        assert [(t["toolId"], t["arguments"], t["source"]) for t in side["tools"]] == [
            (t["toolId"], t["arguments"], t["source"]) for t in was["tools"]]  # fmt: skip
        assert (side["scores"], side["diverged"]) == (was["candidate"], was["diverged"])
    check_models(server, both)

    live = tried(server, project, "0.2.0", "--baseline=live")
    assert live["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.3.0", "via": "live",
        "liveScope": {}, "liveSource": "latest-registered"}  # fmt: skip
    share = live["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (0.5, 1)
    check_models(server, live)


def check_models(server: DevServer, run: dict[str, Any]) -> None:
    """The run as the official client reads it, and as the contract shapes it."""
    client = Kindgi(base_url=server.url, token=server.token)
    read = client.eval_runs.get(run["runId"])
    comparison = comparison_of(read)
    assert comparison is not None
    assert isinstance(comparison.summary.baseline, models.Baseline1)
    assert comparison.summary.baseline.version == run["result"]["summary"]["baseline"]["version"]
    assert problems("JudgedComparisonSummary", strict_summary(run["result"]["summary"])) == []
    started = client.eval_runs.start(
        SUITE, project_id=run["projectId"], agent_ref={"agent_id": AGENT, "version": "0.3.0"},
        baseline=models.EvalBaseline1(agent_id=AGENT, version="0.2.0"), dry_run=True,
    )  # fmt: skip
    assert started.dry_run_preview is not None
    assert started.dry_run_preview["replays"] == {"candidate": 3, "baseline": 3}


def test_a_baseline_whose_pinned_tool_version_is_gone_is_refused(server: DevServer) -> None:
    project = tutorial(server)
    save_agent(server, "0.2.0", CONCISE)
    save_agent(server, "0.3.0", TWO)
    tool = server.pack / "tools" / "search_articles.py"
    seen = len(server.output())
    tool.write_text(tool.read_text().replace('    id="acme-ops.search-articles",\n',
                                             '    id="acme-ops.search-articles",\n'
                                             '    version="0.2.0",\n'))  # fmt: skip
    wait_for(lambda: "✓ loaded" in server.output()[seen:])
    database = server.pack / ".kindgi" / "dev.sqlite3"
    before = every_row(database)
    refused = kindgi(
        server,
        "eval-runs",
        "start",
        SUITE,
        f"--project={project}",
        f"--agent={AGENT}",
        "--agent-version=0.3.0",
        f"--baseline={AGENT}@0.2.0",
        "--wait",
        code=1,
    )
    assert refused.stderr.strip() == (
        f"Error [version-not-runnable]: {AGENT} 0.2.0 can't run: it pins {SEARCH}@0.1.0, which "
        "the pack no longer serves."
    )
    assert every_row(database) == before
    client = Kindgi(base_url=server.url, token=server.token)
    pins = client.agents.get_version(AGENT, "0.3.0").tools
    assert (SEARCH, "0.2.0") in [(t.id, t.version) for t in pins]


def test_a_flow_step_swapped_to_an_older_agent_version(server: DevServer) -> None:
    seen = len(server.output())
    (server.pack / "flows" / "pick_with_agent.py").write_text(FLOW)
    wait_for(lambda: "✓ loaded" in server.output()[seen:])
    client = Kindgi(base_url=server.url, token=server.token)
    runs = {}
    for question in QUESTIONS:
        run = client.runs.start(flow=PICK, input={"question": question})
        runs[str(run.id)] = [a["id"] for a in run.output["output"]["articles"]]
    assert list(runs.values()) == list(QUESTIONS.values())
    corrected(server, runs)
    project = str(kindgi_json(server, "projects", "get-default")["id"])
    kindgi_json(
        server,
        "eval-suites",
        "from-judgments",
        "acme.agent-picks",
        "--suite-version=1.0.0",
        f"--project={project}",
        f"--flow={PICK}",
    )
    save_agent(server, "0.2.0", CONCISE)
    start_flow = ("eval-runs", "start", "acme.agent-picks", f"--project={project}",
                  f"--flow={PICK}", "--flow-version=0.1.0")  # fmt: skip
    latest = kindgi_json(server, *start_flow, "--wait")
    older = kindgi_json(server, *start_flow, f"--with={AGENT}@0.1.0", "--wait")
    for run, candidate in ((latest, 1), (older, pytest.approx(1 / 3))):
        share = run["result"]["summary"]["metrics"]["weightedYesShare"]
        assert (share["baseline"], share["candidate"]) == (pytest.approx(1 / 3), candidate)
    assert older["result"]["summary"]["candidate"]["versions"] == {"agents": {AGENT: "0.1.0"}}
    replay = older["result"]["perCase"][0]["runIds"][0]
    with server.client() as http:
        journal = http.get(f"/v1/runs/{replay}/journal").json()["data"]
    step = next(e for e in journal if e.get("nodeId") == "pick")
    assert (step["payload"]["agentId"], step["payload"]["version"]) == (AGENT, "0.1.0")
