"""Phoenix's side of `peers.py`, run by the Python of Phoenix's own venv (never ours).

`python peers_phoenix_script.py CASES.json WORKDIR` starts `phoenix serve` on loopback
with its database in WORKDIR, uploads the cases as a dataset, runs one experiment with a
Python task (the deterministic candidate) and a Python evaluator (the share of the answer's
articles marked right), stops the server and prints one JSON line: the seconds each step
took, the mean score, and the peak resident memory of the server and of this client.
Only the standard library and Phoenix's packages are imported here.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

PICKED = 3
"""How many articles 0.1.0's instructions ask for (as `peers_work.PICKED`)."""


def free_port() -> int:
    """A port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`phoenix serve` on loopback, once it answers; the process and its URL."""
    port, grpc = free_port(), free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(workdir), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(grpc),
           "PHOENIX_TELEMETRY_ENABLED": "false", "DO_NOT_TRACK": "1"}  # fmt: skip
    log = (workdir / "server.log").open("wb")
    binary = str(Path(sys.executable).with_name("phoenix"))
    process = subprocess.Popen([binary, "serve"], env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.perf_counter() + 120
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"phoenix serve exited {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("phoenix serve did not answer in 120 s")


def peak_mb(pid: int) -> float:
    """A live process's peak resident memory (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for pid {pid}")


def task(input: dict[str, Any]) -> dict[str, Any]:
    """The deterministic candidate: the first three articles of the recorded search."""
    return {"articles": [{"id": a["id"], "title": a["title"]} for a in input["found"][:PICKED]]}


def share_right(output: dict[str, Any], expected: dict[str, Any]) -> float:
    """The share of the answer's articles that the case's correction marked right."""
    articles = output["articles"]
    right = set(expected["right"])
    return sum(a["id"] in right for a in articles) / len(articles) if articles else 0.0


def experiment(url: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Upload the dataset and run the experiment; the seconds each took and the mean score."""
    from phoenix.client import Client

    client = Client(base_url=url)
    began = time.perf_counter()
    dataset = client.datasets.create_dataset(
        name=f"article-picks-{len(cases)}-{time.time_ns()}",
        inputs=[{"question": c["question"], "found": c["found"]} for c in cases],
        outputs=[{"right": c["right"]} for c in cases],
        timeout=max(60, len(cases) // 10),
    )
    uploaded = time.perf_counter()
    ran = client.experiments.run_experiment(
        dataset=dataset, task=task, evaluators=[share_right], print_summary=False,
        timeout=max(60, len(cases) // 10),
    )  # fmt: skip
    done = time.perf_counter()
    scores = [
        e.result["score"] if isinstance(e.result, dict) else e.result.score
        for e in ran["evaluation_runs"]
    ] if isinstance(ran, dict) else []  # fmt: skip
    mean = sum(scores) / len(scores) if scores else None
    return {"upload_s": uploaded - began, "experiment_s": done - uploaded,
            "scored": len(scores), "mean": mean}  # fmt: skip


def main() -> int:
    """Serve, run, stop, report."""
    cases = json.loads(Path(sys.argv[1]).read_text())
    workdir = Path(sys.argv[2])
    began = time.perf_counter()
    server, url = serve(workdir)
    try:
        started = time.perf_counter()
        measured = experiment(url, cases)
        server_mb = peak_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    client_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({**measured, "start_s": started - began, "server_mb": server_mb,
                      "client_mb": client_mb}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
