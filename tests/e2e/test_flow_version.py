"""The 0.3 page's "Try a flow version" against the real `kindgi dev`: our CLI and the client.

The flow runs on the tutorial's questions, people correct its articles, `acme.flow-picks`
is built with `--flow`, and `acme-ops.suggest-articles` 0.1.0 is tried with
`acme-ops.find-articles` at 0.2.0: the page's numbers, its refusal and its stopped case.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from contract_check import contract_summary, problems
from devserver import DevServer, kindgi, kindgi_json
from kindgi.client import Kindgi, comparison_of

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

SUGGEST = "acme-ops.suggest-articles"
SUGGEST_AND_LOG = "acme-ops.suggest-and-log"
FIND_V2 = "acme-ops.find-articles@0.2.0"
REFUND = "I was charged twice for one order. How do I get my money back?"
FOUND = {
    "I forgot my password and can't sign in.": ["kb-101", "kb-102"],
    REFUND: ["kb-201", "kb-203"],
    "My package hasn't arrived yet. Where is it?": ["kb-301", "kb-303"],
}
STOPPED = {
    "toolId": "acme-ops.log-suggestion",
    "arguments": {"articles": [{"id": "kb-201", "title": "Request a refund"}],
                  "question": REFUND},
    "reason": "replay: this call changes things and has no recorded result",
}  # fmt: skip


def correct(client: Kindgi, run_id: str, articles: list[str]) -> None:
    """The first article right, the others wrong, as the tutorial corrects."""
    for rank, article in enumerate(articles):
        client.judgments.create(run_id=run_id, verdict="yes" if rank == 0 else "no",
                                item={"key": article, "pointer": f"/output/articles/{rank}",
                                      "rank": rank})  # fmt: skip


def build(server: DevServer, suite_id: str, flow_id: str, project: str) -> None:
    built = kindgi_json(
        server,
        "eval-suites",
        "from-judgments",
        suite_id,
        "--suite-version=1.0.0",
        f"--project={project}",
        f"--flow={flow_id}",
    )
    assert built["caseCount"] == 3


def try_flow(server: DevServer, suite_id: str, flow_id: str, project: str, *more: str) -> Any:
    return kindgi_json(
        server,
        "eval-runs",
        "start",
        suite_id,
        f"--project={project}",
        f"--flow={flow_id}",
        "--flow-version=0.1.0",
        *more,
        "--wait",
    )


def check_contract(server: DevServer, run_id: str, eval_run: dict[str, Any]) -> None:
    """The flow run, its journal and the eval run as the contract shapes them."""
    with server.client() as http:
        run = http.get(f"/v1/runs/{run_id}").json()
        journal = http.get(f"/v1/runs/{run_id}/journal").json()
    assert problems("Run", run) == []
    assert problems("RunJournalPage", journal) == []
    assert problems("EvalRun", eval_run) == []
    summary = contract_summary(eval_run["result"]["summary"])
    assert problems("JudgedComparisonSummary", summary) == []


def test_try_a_flow_version_with_a_tool_swapped(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    project = str(client.projects.get_default().id)
    run_ids = []
    for question, expected in FOUND.items():
        run = client.runs.start(flow=SUGGEST, input={"question": question})
        assert (run.status, run.flow_id, run.flow_version) == ("completed", SUGGEST, "0.1.0")
        assert [a["id"] for a in run.output["output"]["articles"]] == expected
        correct(client, str(run.id), expected)
        run_ids.append(str(run.id))
    steps = client.runs.journal(run_ids[0]).data
    assert [(s.kind, s.node_id) for s in steps] == [
        ("run.started", None), ("step.completed", "find"), ("run.completed", None)]  # fmt: skip
    build(server, "acme.flow-picks", SUGGEST, project)

    live = try_flow(server, "acme.flow-picks", SUGGEST, project, f"--with={FIND_V2}",
                    "--reads=live")  # fmt: skip
    summary = live["result"]["summary"]
    assert summary["candidate"] == {
        "kind": "flow",
        "flowId": SUGGEST,
        "version": "0.1.0",
        "versions": {"tools": {"acme-ops.find-articles": "0.2.0"}},
    }
    share = summary["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (0.5, 1)
    check_contract(server, run_ids[0], live)

    started = client.eval_runs.start(
        "acme.flow-picks", project_id=project, flow_ref={"flow_id": SUGGEST, "version": "0.1.0"},
        versions={"tools": {"acme-ops.find-articles": "0.2.0"}},
    )  # fmt: skip
    recorded = client.eval_runs.get(str(started.run_id))
    while recorded.status in ("pending", "running"):
        time.sleep(0.2)
        recorded = client.eval_runs.get(str(started.run_id))
    comparison = comparison_of(recorded)
    assert comparison is not None
    share_recorded = comparison.summary.metrics.weighted_yes_share
    assert (share_recorded.baseline, share_recorded.candidate) == (0.5, 0.5)

    before = len(client.eval_runs.list().data)
    refused = kindgi(
        server,
        "eval-runs",
        "start",
        "acme.flow-picks",
        f"--project={project}",
        f"--flow={SUGGEST}",
        "--flow-version=0.1.0",
        "--with=acme-ops.article-picker@0.2.0",
        "--wait",
        code=1,
    )
    assert refused.stderr.strip() == (
        "Error: flow acme-ops.suggest-articles 0.1.0 doesn't use acme-ops.article-picker"
    )
    assert len(client.eval_runs.list().data) == before

    first = kindgi_json(
        server,
        "runs",
        "start",
        f"--flow={SUGGEST_AND_LOG}",
        f"--input={json.dumps({'question': next(iter(FOUND))})}",
    )
    logged = [first["id"]] + [
        str(client.runs.start(flow=SUGGEST_AND_LOG, input={"question": q}).id)
        for q in list(FOUND)[1:]
    ]
    for run_id, expected in zip(logged, FOUND.values(), strict=True):
        correct(client, run_id, expected)
    build(server, "acme.flow-log-picks", SUGGEST_AND_LOG, project)
    stopped = try_flow(server, "acme.flow-log-picks", SUGGEST_AND_LOG, project,
                       f"--with={FIND_V2}", "--reads=live")  # fmt: skip
    by_case = {case["caseId"]: case for case in stopped["result"]["perCase"]}
    assert by_case[logged[1]]["stopped"] == STOPPED
    assert [c for c in logged if "stopped" in by_case[c]] == [logged[1]]
    assert all(by_case[c]["candidate"] for c in (logged[0], logged[2]))
    summary = stopped["result"]["summary"]
    assert (summary["stopped"], summary["refusedWrites"]) == (1, 1)
    assert summary["metrics"]["weightedYesShare"]["n"] == 2
    check_contract(server, logged[1], stopped)
