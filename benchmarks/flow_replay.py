"""Row 9: the replay overhead of a flow case, per node, with every tool call recorded.

`cases` runs of `acme-ops.suggest-articles` 0.1.0 (one tool node) on the tutorial's
questions, each corrected; a suite built with `flowId`; then an eval run of the same flow
version on it, so every node's call is answered from the recording, timed from the start
call to reading it finished, divided by cases × nodes; beside it the server's CPU over the
same span, per node, which the load of other work on the machine moves much less.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import seed
from lab import Lab, ms, post_concurrently, say
from rows import cpu_seconds

FLOW = "acme-ops.suggest-articles"
NODES = 1
SUITE_ID = "bench.flow-picks"


def flow_runs(client: httpx.Client, count: int) -> list[dict[str, Any]]:
    """`count` finished runs of the flow on the tutorial's questions."""

    def one(index: int) -> dict[str, Any]:
        body = {"flow": FLOW, "input": {"question": seed.QUESTIONS[index % 3]}}
        response = client.post("/v1/runs", json=body)
        if response.status_code != 201:
            raise RuntimeError(f"POST /v1/runs: {response.status_code} {response.text[:300]}")
        run: dict[str, Any] = response.json()
        return run

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, range(count)))


def timed_flow_eval(
    client: httpx.Client, project: str, pid: int
) -> tuple[float, float, dict[str, Any]]:
    """Try the recorded flow version on the suite; seconds until it is seen finished, and
    the CPU seconds the server (`pid`) spent meanwhile."""
    body = {"projectId": project, "flowRef": {"flowId": FLOW, "version": "0.1.0"}}
    cpu = cpu_seconds(pid)
    started = time.perf_counter()
    response = client.post(f"/v1/eval-suites/{SUITE_ID}/runs", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"starting an eval run: {response.status_code} {response.text[:300]}")
    run_id = response.json()["runId"]
    while (run := client.get(f"/v1/eval-runs/{run_id}").json())["status"] not in seed.TERMINAL:
        if time.perf_counter() - started > 300:
            raise RuntimeError(f"eval run {run_id} did not finish in 5 minutes")
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu
    if run["status"] != "completed":
        raise RuntimeError(f"eval run {run_id} is {run['status']}: {run.get('error')}")
    return elapsed, cpu, run["result"]["summary"]


def measure(lab: Lab) -> tuple[str, float]:
    """The cell's text and the ms per node it is judged on."""
    cases = lab.sizes.cases
    server = lab.start(lab.pack("flows"))
    try:
        with server.client() as client:
            say(f"  {cases} flow runs, each corrected, and a suite built with flowId…")
            runs = flow_runs(client, cases)
            bodies = [seed.correction(run, f"p-{i}") for i, run in enumerate(runs)]
            post_concurrently(server, bodies, lab.sizes.clients, float("inf"))
            project = seed.project_id(client)
            built = client.post(
                f"/v1/eval-suites/{SUITE_ID}/versions/from-judgments",
                json={"version": "1.0.0", "projectId": project, "flowId": FLOW},
            )
            if built.status_code != 201:
                raise RuntimeError(f"building the suite: {built.status_code} {built.text[:300]}")
            say(f"  eval run of the flow on {cases} cases…")
            seconds, cpu, summary = timed_flow_eval(client, project, server.pid)
    finally:
        lab.stop(server)
    per_node = ms(seconds) / summary["cases"] / NODES
    cpu_per_node = ms(cpu) / summary["cases"] / NODES
    remarks = [f"{summary[k]} {k}" for k in ("errors", "diverged", "refusedWrites", "stopped")
               if summary[k]]  # fmt: skip
    note = f" ⚠ {'; '.join(remarks)}" if remarks else ""
    text = (f"{per_node:.1f} ms/node ({summary['cases']} cases of {NODES} tool node in "
            f"{seconds:.2f} s; the server's CPU {cpu_per_node:.2f} ms/node){note}")  # fmt: skip
    return text, per_node
