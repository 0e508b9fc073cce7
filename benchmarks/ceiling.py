"""What one process's HTTP stack can serve on this machine, beside what `kindgi dev` serves
(#29 point 2: row 4's ≥ 3,000 corrections/s).

The same `wrk` load as row 4 (one thread, 4 connections) on: an ASGI app that answers a
constant under uvicorn as `kindgi dev` runs it (httptools, asyncio's loop, no access log,
no proxy headers); a Starlette app of one route answering JSON; and `kindgi dev` on the
example, answering `GET /health`, `GET /v1/runs?limit=1` and row 4's `POST
/v1/corrections`. Each in turns, `--rounds` times; the medians of requests a second and of
the server's CPU a request. ≥ 3,000/s on the one event loop needs ≤ 0.33 ms of CPU a
correction: the bare rows say how much of that the HTTP server itself takes.

    .venv/bin/python benchmarks/ceiling.py [--rounds 3] [--seconds 6]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import devserver
import httpx
import seed
from lab import WRK_SCRIPT, ms, say
from rows import cpu_seconds, machine_line

BARE_APP = """
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"status":"ok"}'})
"""

STARLETTE_APP = """
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

async def health(request):
    return JSONResponse({"status": "ok"})

app = Starlette(routes=[Route("/health", health)])
"""

UVICORN = ["--http", "httptools", "--loop", "asyncio", "--ws", "none", "--no-access-log",
           "--no-proxy-headers", "--log-level", "warning"]  # fmt: skip
"""uvicorn's options as `kindgi dev` sets them (`cli/dev.py`)."""


@dataclass
class Served:
    """What wrk measured for one thing served: requests a second, server CPU ms a request."""

    what: str
    rates: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Target:
    """A process under load: its pid, the URL wrk loads, and its Lua script if it posts."""

    pid: int
    url: str
    script: Path | None = None
    token: str | None = None


def wrk(target: Target, seconds: int) -> tuple[int, float]:
    """(requests, requests a second) of one wrk run against `target`."""
    command = ["wrk", "-t1", "-c4", f"-d{seconds}s"]
    if target.token is not None:
        command += ["-H", f"Authorization: Bearer {target.token}"]
    if target.script is not None:
        command += ["-s", str(target.script)]
    done = subprocess.run(
        [*command, target.url], capture_output=True, text=True, timeout=seconds + 30
    )
    if "Non-2xx" in done.stdout:
        raise RuntimeError(f"wrk got refusals:\n{done.stdout}")
    count = re.search(r"(\d+) requests in", done.stdout)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    if count is None or rate is None:
        raise RuntimeError(f"wrk printed no rate:\n{done.stdout}{done.stderr}")
    return int(count.group(1)), float(rate.group(1))


def measure(served: Served, target: Target, seconds: int) -> None:
    """One wrk run, the server's CPU over it."""
    before = cpu_seconds(target.pid)
    count, rate = wrk(target, seconds)
    served.rates.append(rate)
    served.cpu_ms.append(ms(cpu_seconds(target.pid) - before) / count)


@contextmanager
def bare(root: Path, source: str, name: str) -> Iterator[Target]:
    """An app module served by uvicorn on a free port, as `kindgi dev` configures it."""
    (root / f"{name}.py").write_text(source)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", f"{name}:app", "--port", str(port), *UVICORN],
        cwd=root,
    )
    url = f"http://127.0.0.1:{port}/health"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url, timeout=1, trust_env=False)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{name} did not start") from None
                time.sleep(0.05)
        yield Target(process.pid, url)
    finally:
        process.terminate()
        process.wait(timeout=10)


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def corrections_script(root: Path, server: devserver.DevServer, run_id: str, n: int) -> Path:
    """Row 4's wrk script, its participants drawn afresh (a run's second correction by the
    same participant replaces the first, which costs more)."""
    script = root / f"corrections-{n}.lua"
    body = WRK_SCRIPT % {"token": server.token, "run": run_id}
    script.write_text(f"math.randomseed({time.time_ns() % 2**31 + n})\n{body}")
    return script


def main(rounds: int, seconds: int) -> None:
    """Each thing served in turns, `rounds` times; prints the table."""
    if shutil.which("wrk") is None:
        raise SystemExit("install wrk (Debian: apt-get install wrk)")
    began = os.getloadavg()
    root = Path(tempfile.mkdtemp(prefix="kindgi-ceiling-"))
    table = [Served(what) for what in (
        "an ASGI app answering a constant, uvicorn as kindgi dev runs it",
        "Starlette, one route answering JSON, the same uvicorn",
        "kindgi dev: GET /health",
        "kindgi dev: GET /v1/runs?limit=1",
        "kindgi dev: POST /v1/corrections (row 4)",
    )]  # fmt: skip
    for n in range(rounds):
        say(f"round {n + 1} of {rounds}…")
        for served, source, name in (
            (table[0], BARE_APP, "bare"),
            (table[1], STARLETTE_APP, "one"),
        ):
            with bare(root, source, name) as target:
                wrk(target, 1)
                measure(served, target, seconds)
        pack = devserver.copy_pack(root / f"pack-{n}")
        server = devserver.start(pack)
        try:
            run_id = seed.start_runs(server, 1)[0]["id"]
            for served, path in ((table[2], "/health"), (table[3], "/v1/runs?limit=1")):
                target = Target(server.pid, server.url + path, token=server.token)
                wrk(target, 1)
                measure(served, target, seconds)
            script = corrections_script(root, server, run_id, n)
            measure(table[4], Target(server.pid, server.url, script), seconds)
        finally:
            server.stop()
    floor = statistics.median(table[0].cpu_ms)
    print("| served | requests/s, median | server CPU a request, median | × the bare app's |")
    print("| --- | --- | --- | --- |")
    for served in table:
        cpu = statistics.median(served.cpu_ms)
        rates = ", ".join(f"{r:,.0f}" for r in served.rates)
        print(
            f"| {served.what} | {statistics.median(served.rates):,.0f} ({rates}) "
            f"| {cpu:.3f} ms | {cpu / floor:.1f}× |"
        )
    print()
    print(f"≥ 3,000 corrections/s on one event loop: ≤ 0.333 ms of CPU a correction; {rounds} "
          f"rounds of {seconds} s, in turns")  # fmt: skip
    print(machine_line(began))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=6)
    options = parser.parse_args()
    main(options.rounds, options.seconds)
