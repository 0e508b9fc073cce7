"""Row 8: each console page's p50 with 10,000 corrections stored (rows 3 and 4's instance).

The console logs in as a person does, with the banner's one-time link, then reads each
page with a keep-alive client: the runs, a run, its Correct this run form, the Test
cases section, the agent's test set, a set built from the corrections, and a run of
version 0.1.0 on that set.
"""

from __future__ import annotations

import re
import statistics
import time

import httpx
import seed
from lab import Lab, ms, say

SUITE_ID = "bench.console-picks"


def login(url: str, log_text: str) -> httpx.Client:
    """A client holding the console's session cookie (named for the port), from the
    banner's link."""
    found = re.search(r"Console\s+(http://\S+)", log_text)
    if found is None:
        raise RuntimeError("the banner printed no console link")
    client = httpx.Client(base_url=url, timeout=60, trust_env=False)
    answer = client.get(found.group(1), follow_redirects=True)
    named = [name for name in client.cookies if name.startswith("kindgi_console_")]
    if answer.status_code != 200 or not named:
        raise RuntimeError(f"the console link did not log in: {answer.status_code}")
    return client


def pages(lab: Lab) -> dict[str, str]:
    """The console pages to read, by name, on rows 3 and 4's instance."""
    load = lab.correction_load()
    with load.server.client() as api:
        run_id = api.get("/v1/runs", params={"limit": 1}).json()["data"][0]["id"]
        seed.build_suite(api, load.project, SUITE_ID)
        say("  a run of 0.1.0 on a set built from the corrections…")
        _, summary, _ = seed.timed_eval_run(load.server, api, load.project, SUITE_ID)
        eval_run = summary["evalRunId"]
    return {
        "runs": "/console/runs",
        "run": f"/console/runs/{run_id}",
        "correct": f"/console/runs/{run_id}/correct",
        "test cases": "/console/test-cases",
        "agent's test set": f"/console/test-cases/agents/{seed.AGENT}",
        "built set": f"/console/test-cases/suites/{SUITE_ID}",
        "eval run": f"/console/eval-runs/{eval_run}",
    }


def measure(lab: Lab, reads: int) -> tuple[str, bool]:
    """Each page's p50 over `reads` reads: the table cell, and whether all are < 100 ms."""
    paths = pages(lab)
    server = lab.correction_load().server
    p50s: dict[str, float] = {}
    client = login(server.url, server.log.read_text())
    try:
        for name, path in paths.items():
            times = []
            for _ in range(reads):
                began = time.perf_counter()
                answer = client.get(path)
                times.append(ms(time.perf_counter() - began))
                if answer.status_code != 200:
                    raise RuntimeError(f"GET {path}: {answer.status_code}")
            p50s[name] = statistics.median(times)
    finally:
        client.close()
    worst = max(p50s, key=lambda name: p50s[name])
    each = ", ".join(f"{name} {value:.1f}" for name, value in p50s.items())
    return f"slowest p50 {p50s[worst]:.1f} ms ({worst}); p50 ms: {each}", p50s[worst] < 100
