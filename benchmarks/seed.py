"""What the benchmarks record through the API first: runs, corrections, a suite, eval runs."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from devserver import DevServer

from kindgi_dev.domain.time import parse_time

AGENT = "acme-ops.article-picker"
QUESTIONS = (
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
)
TERMINAL = ("completed", "failed", "cancelled")
CLI_POLL_S = 1.0
"""How often `kindgi eval-runs start --wait` polls a running eval run."""


def project_id(client: httpx.Client) -> str:
    """The default project's id."""
    response = client.get("/v1/projects/default")
    response.raise_for_status()
    return str(response.json()["id"])


def start_runs(server: DevServer, count: int, workers: int = 4) -> list[dict[str, Any]]:
    """`count` finished runs of the article picker on the tutorial's questions, in order."""

    def one(index: int) -> dict[str, Any]:
        body = {"agent": AGENT, "input": {"userMessage": QUESTIONS[index % len(QUESTIONS)]}}
        response = clients[index % workers].post("/v1/runs", json=body)
        response.raise_for_status()
        run: dict[str, Any] = response.json()
        if run["status"] != "completed":
            raise RuntimeError(f"run {run['id']} is {run['status']}: {run.get('failureMessage')}")
        return run

    clients = [server.client() for _ in range(workers)]
    try:
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(one, range(count)))
    finally:
        for client in clients:
            client.close()


def correction(run: dict[str, Any], participant: str) -> dict[str, Any]:
    """The tutorial's correction of a run: its first article right, the others wrong."""
    articles = run["output"]["output"]["articles"]
    items = [
        {
            "key": article["id"],
            "pointer": f"/output/articles/{rank}",
            "rank": rank,
            "verdict": "right" if rank == 0 else "wrong",
        }
        for rank, article in enumerate(articles)
    ]
    return {"runId": run["id"], "participantId": participant, "items": items}


def post_correction(
    client: httpx.Client, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    """POST one correction; anything but 201 is an error."""
    response = client.post("/v1/corrections", json=body, headers=headers)
    if response.status_code != 201:
        raise RuntimeError(f"POST /v1/corrections: {response.status_code} {response.text[:300]}")


def build_suite(client: httpx.Client, project: str, suite_id: str) -> int:
    """Build version 1.0.0 of `suite_id` from the agent's corrected runs; its case count."""
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    response = client.post(f"/v1/eval-suites/{suite_id}/versions/from-judgments", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"building {suite_id}: {response.status_code} {response.text[:300]}")
    return int(response.json()["caseCount"])


def read_test_set(
    client: httpx.Client, project: str, headers: dict[str, str] | None = None
) -> tuple[float, float, int]:
    """GET the agent's test set and its first cases page: (seconds, seconds, active cases)."""
    path = f"/v1/agents/{AGENT}/test-set"
    began = time.perf_counter()
    summary = client.get(path, params={"projectId": project}, headers=headers)
    middle = time.perf_counter()
    cases = client.get(f"{path}/cases", params={"projectId": project}, headers=headers)
    ended = time.perf_counter()
    for response in (summary, cases):
        if response.status_code != 200:
            raise RuntimeError(f"GET {response.url.path}: {response.status_code}")
    return middle - began, ended - middle, int(summary.json()["cases"]["active"])


def timed_eval_run(
    server: DevServer, client: httpx.Client, project: str, suite_id: str
) -> tuple[float, dict[str, Any], int | None]:
    """Replay agent 0.1.0 on the suite; seconds from the run's start to its end, as it records
    them, its summary, and the concurrency its progress showed.

    Polls `GET /v1/eval-runs/{id}` each second on one keep-alive connection, as
    `kindgi eval-runs start --wait` does;
    raises when the run did not complete, or not within 5 minutes.
    """
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.1.0"}}
    started = time.perf_counter()
    response = client.post(f"/v1/eval-suites/{suite_id}/runs", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"starting an eval run: {response.status_code} {response.text[:300]}")
    run_id = response.json()["runId"]
    concurrency = None
    while True:
        time.sleep(CLI_POLL_S)
        run = poll(client, run_id)
        if run["status"] in TERMINAL:
            break
        concurrency = (run.get("progress") or {}).get("concurrency", concurrency)
        if time.perf_counter() - started > 300:
            raise RuntimeError(f"eval run {run_id} did not finish in 5 minutes")
    if run["status"] != "completed":
        raise RuntimeError(f"eval run {run_id} is {run['status']}: {run.get('error')}")
    return run_seconds(run), run["result"]["summary"], concurrency


def poll(client: httpx.Client, run_id: str) -> dict[str, Any]:
    """One poll of an eval run on the keep-alive client, as the CLI's client polls."""
    response = client.get(f"/v1/eval-runs/{run_id}")
    response.raise_for_status()
    answer: dict[str, Any] = response.json()
    return answer


def run_seconds(run: dict[str, Any]) -> float:
    """An eval run's time from its `startedAt` to its `completedAt`."""
    return (parse_time(run["completedAt"]) - parse_time(run["startedAt"])).total_seconds()
