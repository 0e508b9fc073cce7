"""Row 12: live runs one after another, and the part of their time that is kindgi dev's own.

A run of the example's function model asks the model twice and calls the search tool once
in the pack service. The model's own work is a few lines of Python (microseconds); the tool
is the pack service's time, measured here on its own: the same invoke request kindgi dev
sends, from a plain `http.client` on a new connection each, as kindgi dev connects. The
run's p50 minus that round trip's p50 is what kindgi dev adds: the target's reading.
"""

from __future__ import annotations

import http.client
import json
import time
import uuid
from pathlib import Path
from typing import Any

import seed
from devserver import DevServer
from lab import Lab, ms, say
from rows import Row, percentile

NOOP_MODELS = Path(__file__).resolve().parent / "noop_models.py"
SEARCH = "acme-ops.search-articles"
WARM_UP = 20


def run_times(server: DevServer, count: int) -> list[float]:
    """`POST /v1/runs` of the article picker on one keep-alive connection; ms of each."""
    body = {"agent": seed.AGENT, "input": {"userMessage": seed.QUESTIONS[0]}}
    times = []
    with server.client() as client:
        for n in range(count + WARM_UP):
            began = time.perf_counter()
            response = client.post("/v1/runs", json=body)
            if response.status_code != 201:
                raise RuntimeError(f"POST /v1/runs: {response.status_code} {response.text}")
            if n >= WARM_UP:
                times.append(ms(time.perf_counter() - began))
    return times


def invoke_times(server: DevServer, count: int) -> list[float]:
    """The search tool's invoke round trip to the pack service, a new connection each."""
    rc = json.loads((server.pack / ".kindgirc.json").read_text())
    times = []
    for n in range(count + WARM_UP):
        run_id = str(uuid.uuid4())
        body = {
            "v": 2,
            "kind": "invoke",
            "tool": {"id": SEARCH},
            "input": {"query": seed.QUESTIONS[0]},
            "ctx": {"tenantId": "bench", "runId": run_id, "requestId": run_id,
                    "idempotencyKey": run_id, "env": {}, "secrets": {}, "config": {},
                    "settings": {}},
        }  # fmt: skip
        headers = {
            "Content-Type": "application/json",
            "kindgi-pack-token": rc["packServiceToken"],
            "kindgi-protocol": "2",
            "kindgi-timeout-ms": "120000",
            "kindgi-run-id": run_id,
            "kindgi-request-id": run_id,
        }
        began = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", rc["packServicePort"], timeout=60)
        connection.request("POST", "/v1/invoke", json.dumps(body), headers)
        response = connection.getresponse()
        answer: Any = json.loads(response.read())
        connection.close()
        if n >= WARM_UP:
            times.append(ms(time.perf_counter() - began))
        if response.status != 200 or answer.get("kind") != "result":
            raise RuntimeError(f"invoke {SEARCH}: {response.status} {answer}")
    return times


def row_live_run(lab: Lab) -> list[Row]:
    """Live runs with the function model and the tool's own round trip; then a no-op model."""
    count = lab.sizes.live_runs
    server = lab.start(lab.pack("live"))
    runs = percentile(run_times(server, count), 50)
    tool = percentile(invoke_times(server, count), 50)
    lab.stop(server)
    server = lab.start(lab.pack("live"), "--models", str(NOOP_MODELS))
    noop = percentile(run_times(server, count), 50)
    lab.stop(server)
    beyond = runs - tool
    say(f"  function model p50 {runs:.1f} ms, tool {tool:.1f} ms; no-op model {noop:.1f} ms")
    measured = (
        f"p50 {beyond:.1f} ms beyond the tool: a run {runs:.1f} ms with the example's function "
        f"model, minus its search tool's round trip to the pack service {tool:.1f} ms; a no-op "
        f"model's run (one turn, no tool) {noop:.1f} ms (n={count} each)"
    )
    what = "a live run, function model (`POST /v1/runs`, one after another)"
    return [Row(what, "p50 < 3 ms beyond model and tools", measured, beyond < 3)]
