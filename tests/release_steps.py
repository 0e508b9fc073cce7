"""Shared steps of the release tests: the tutorial's corrected runs and suite, and 0.2.0
tried on them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from factories import AGENT, QUESTIONS, tutorial_runs

from kindgi_dev.services.context import Context

CANDIDATE_MODELS = '''\
"""The picker as a function model: it searches, then keeps only kb-101 (0.2.0's way)."""

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def picker(turn):
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    return Reply(text="Try this.", output={"articles": [{"id": "kb-101", "title": "Reset"}]})
'''
SUITE = "acme.article-picks"


def models_file(folder: Path) -> Path:
    """A function-models file whose picker answers with kb-101 alone."""
    path = folder / "release_models.py"
    path.write_text(CANDIDATE_MODELS)
    return path


def corrected_suite(client: httpx.Client, ctx: Context) -> str:
    """The tutorial's three runs on 0.1.0, corrected as the spec does, built into suite
    1.0.0; the default project's id (`client`: a test client, or one over HTTP)."""
    for question, run_id in tutorial_runs(ctx).items():
        for rank, article in enumerate(QUESTIONS[question]):
            body = {
                "runId": run_id,
                "verdict": "yes" if rank == 0 else "no",
                "item": {"key": article, "pointer": f"/output/articles/{rank}", "rank": rank},
            }
            assert client.post("/v1/judgments", json=body).status_code == 201
    project = str(client.get("/v1/projects/default").json()["id"])
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    built = client.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text
    return project


def try_version(client: httpx.Client, project: str, version: str = "0.2.0") -> dict[str, Any]:
    """Try a version on the suite and wait for the eval run to end; the run."""
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": version}}
    started = client.post(f"/v1/eval-suites/{SUITE}/runs", json=body)
    assert started.status_code == 201, started.text
    for _ in range(400):
        run = client.get(f"/v1/eval-runs/{started.json()['runId']}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def project_scope(project: str) -> dict[str, str]:
    """A project's live scope."""
    return {"kind": "project", "projectId": project}
