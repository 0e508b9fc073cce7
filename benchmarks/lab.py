"""What the rows share: the temp folder, the servers in it, and the data they record first."""

from __future__ import annotations

import http.client
import itertools
import json
import math
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import seed
from devserver import CLOSE, DevServer, copy_pack, start
from rows import cpu_seconds

SUITE_ID = "bench.article-picks"


@dataclass(frozen=True)
class Sizes:
    """How many of each thing a run measures."""

    starts: int = 5
    saves: int = 5
    runs: int = 20
    corrections: int = 10_000
    sequential: int = 300
    fresh: int = 50
    clients: int = 3
    reads: int = 200
    cases: int = 200
    idle_s: float = 3.0
    load_limit_s: float = 120.0
    wrk_seconds: int = 8
    scale_corrections: tuple[int, ...] = (1_000, 10_000, 100_000)
    scale_cases: tuple[int, ...] = (100, 1_000, 5_000)
    scale_other_runs: int = 50_000
    live_runs: int = 200
    bulk_corrections: int = 20_000


QUICK = Sizes(
    starts=2, saves=2, runs=6, corrections=1_000, sequential=100, fresh=20, reads=50, cases=30,
    scale_corrections=(500, 1_000, 2_000), scale_cases=(20, 50, 100), scale_other_runs=1_000,
    live_runs=50, bulk_corrections=2_000,
)  # fmt: skip


@dataclass
class CorrectionLoad:
    """The agent test set of rows 3 and 4, and what recording its corrections measured."""

    server: DevServer
    project: str
    sequential_ms: list[float]
    fresh_ms: list[float]
    rate: float
    wrk_rate: float | None = None
    wrk_cpu_ms: float | None = None
    """The server's CPU time per correction while wrk ran: on a shared machine it moves
    far less than the rate does."""


@dataclass(frozen=True)
class CorrectedSuite:
    """A pack whose runs are all corrected, with a suite built from them (rows 5 and 6)."""

    pack: Path
    project: str
    cases: int


def say(line: str) -> None:
    """A progress line on stderr."""
    print(line, file=sys.stderr, flush=True)


def ms(seconds: float) -> float:
    """Seconds in milliseconds."""
    return seconds * 1000


class Lab:
    """The temp folder, the servers started in it, and the data several rows share."""

    def __init__(self, root: Path, sizes: Sizes) -> None:
        self.root = root
        self.sizes = sizes
        self.servers: list[DevServer] = []
        self._names = itertools.count()
        self._load: CorrectionLoad | None = None
        self._suite: CorrectedSuite | None = None

    def pack(self, name: str) -> Path:
        """A fresh copy of the example pack."""
        return copy_pack(self.root / f"{name}-{next(self._names)}")

    def start(self, pack: Path, *args: str, env: dict[str, str] | None = None) -> DevServer:
        """`kindgi dev` on `pack`, stopped at the latest when the lab closes."""
        server = start(pack, *args, env=env)
        self.servers.append(server)
        return server

    def stop(self, server: DevServer) -> None:
        """Stop one server."""
        server.stop()
        self.servers.remove(server)

    def close(self) -> None:
        """Stop every server still running."""
        for server in list(self.servers):
            self.stop(server)

    def correction_load(self) -> CorrectionLoad:
        """Rows 3 and 4's server and its recorded corrections, made once."""
        if self._load is None:
            self._load = record_corrections(self)
        return self._load

    def drop_correction_load(self) -> None:
        """Stop rows 3 and 4's server once neither needs it."""
        if self._load is not None:
            self.stop(self._load.server)
            self._load = None

    def corrected_suite(self) -> CorrectedSuite:
        """Rows 5 and 6's pack, made once."""
        if self._suite is None:
            self._suite = build_corrected_suite(self)
        return self._suite


def post_concurrently(
    server: DevServer, bodies: list[dict[str, Any]], clients: int, limit_s: float
) -> tuple[int, float]:
    """POST corrections from `clients` processes, each with one keep-alive connection.

    Processes, not threads: a client's own CPU must not be what is measured. Stops
    after `limit_s`; returns how many were recorded and the seconds it took.
    """
    deadline = time.time() + 2.0 + limit_s
    parts = [(server.url, server.token, bodies[i::clients], deadline) for i in range(clients)]
    with ProcessPoolExecutor(clients) as pool:
        results = list(pool.map(_post_part, parts))
    done = sum(count for count, _, _ in results)
    began = min(start for _, start, _ in results)
    ended = max(end for _, _, end in results)
    return done, ended - began


def _post_part(part: tuple[str, str, list[dict[str, Any]], float]) -> tuple[int, float, float]:
    """One client process: POST its share over one connection; (count, first, last) times."""
    url, token, bodies, deadline = part
    parsed = urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    began = time.time()
    done = 0
    for body in bodies:
        if time.time() > deadline:
            break
        connection.request("POST", "/v1/corrections", json.dumps(body), headers)
        response = connection.getresponse()
        response.read()
        if response.status != 201:
            raise RuntimeError(f"POST /v1/corrections: {response.status}")
        done += 1
    connection.close()
    return done, began, time.time()


WRK_SCRIPT = """
counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %(token)s"
request = function()
  counter = counter + 1
  local body = '{"runId":"%(run)s","participantId":"wrk-' .. math.random(1, 1000000000)
    .. '-' .. counter .. '","items":[{"key":"kb-101","pointer":"/output/articles/0",'
    .. '"rank":0,"verdict":"right"}]}'
  return wrk.format(nil, "/v1/corrections", nil, body)
end
"""


def wrk_rate(lab: Lab) -> tuple[float, float] | None:
    """Sustained corrections/s from `wrk` (a C load generator) and the server's CPU ms per
    correction meanwhile, or None when wrk isn't installed.

    Python clients on a 2-core machine measure themselves as much as the server; wrk doesn't.
    It runs on an instance of its own, so the test set of rows 3 and 4 keeps 10,000 cases.
    """
    if shutil.which("wrk") is None:
        return None
    server = lab.start(lab.pack("wrk"))
    seconds = lab.sizes.wrk_seconds
    script = lab.root / "corrections.lua"
    script.write_text(
        WRK_SCRIPT % {"token": server.token, "run": seed.start_runs(server, 1)[0]["id"]}
    )
    try:
        cpu_before = cpu_seconds(server.pid)
        done = subprocess.run(
            ["wrk", "-t1", "-c4", f"-d{seconds}s", "-s", str(script), server.url],
            capture_output=True, text=True, timeout=seconds + 30,
        )  # fmt: skip
        cpu = cpu_seconds(server.pid) - cpu_before
    finally:
        lab.stop(server)
    if "Non-2xx" in done.stdout:
        raise RuntimeError(f"wrk got refusals:\n{done.stdout}")
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    count = re.search(r"(\d+) requests in", done.stdout)
    if rate is None or count is None:
        return None
    return float(rate.group(1)), ms(cpu) / int(count.group(1))


def record_corrections(lab: Lab) -> CorrectionLoad:
    """Runs, then corrections: sequential ones timed one by one, the rest from many clients."""
    sizes = lab.sizes
    server = lab.start(lab.pack("corrections"))
    say(f"  {sizes.runs} runs through the API…")
    runs = seed.start_runs(server, sizes.runs)
    bodies = [seed.correction(runs[i % len(runs)], f"p-{i}") for i in range(sizes.corrections)]
    sequential, fresh = bodies[: sizes.sequential], bodies[sizes.sequential :][: sizes.fresh]
    with server.client() as client:
        project = seed.project_id(client)
        say(f"  {len(sequential)} corrections one at a time (keep-alive)…")
        sequential_ms = []
        for body in sequential:
            began = time.perf_counter()
            seed.post_correction(client, body)
            sequential_ms.append(ms(time.perf_counter() - began))
        say(f"  {len(fresh)} corrections one at a time, a new connection each…")
        fresh_ms = []
        for body in fresh:
            began = time.perf_counter()
            seed.post_correction(client, body, headers=CLOSE)
            fresh_ms.append(ms(time.perf_counter() - began))
    rest = bodies[len(sequential) + len(fresh) :]
    say(f"  {len(rest)} corrections from {sizes.clients} concurrent clients…")
    done, seconds = post_concurrently(server, rest, sizes.clients, sizes.load_limit_s)
    say("  sustained rate with wrk (when installed)…")
    sustained = wrk_rate(lab)
    rate, cpu_ms = sustained if sustained is not None else (None, None)
    return CorrectionLoad(server, project, sequential_ms, fresh_ms, done / seconds, rate, cpu_ms)


def build_corrected_suite(lab: Lab) -> CorrectedSuite:
    """`cases` runs of the tutorial's questions with the function model, each corrected once,
    and suite version 1.0.0 built from them; the server is stopped afterwards."""
    cases = lab.sizes.cases
    pack = lab.pack("suite")
    server = lab.start(pack)
    say(f"  {cases} runs, each corrected, and a suite built from them…")
    runs = seed.start_runs(server, cases)
    bodies = [seed.correction(run, f"p-{i}") for i, run in enumerate(runs)]
    post_concurrently(server, bodies, lab.sizes.clients, math.inf)
    with server.client() as client:
        project = seed.project_id(client)
        built = seed.build_suite(client, project, SUITE_ID)
    lab.stop(server)
    return CorrectedSuite(pack, project, built)


def timed_eval(
    lab: Lab, suite: CorrectedSuite, *args: str, env: dict[str, str] | None = None
) -> tuple[float, dict[str, Any], int | None]:
    """Start `kindgi dev ARGS` on the suite's pack, time one eval run of 0.1.0, stop."""
    server = lab.start(suite.pack, *args, env=env)
    try:
        with server.client() as client:
            return seed.timed_eval_run(server, client, suite.project, SUITE_ID)
    finally:
        lab.stop(server)
