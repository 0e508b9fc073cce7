"""Row 13: `/health` and a list read while a 14,000-item correction is being replaced."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import seed
from lab import Lab, ms, say
from rows import Row, percentile
from wide_models import ARTICLES as ITEMS

WIDE_MODELS = Path(__file__).resolve().parent / "wide_models.py"
TARGET_MS = 100


def _correct(client: httpx.Client, run_id: str, verdict: str) -> float:
    """Post a correction judging each of the run's 14,000 articles; its time in seconds."""
    items = [{"key": f"kb-{i}", "pointer": f"/output/articles/{i}", "verdict": verdict}
             for i in range(ITEMS)]  # fmt: skip
    began = time.perf_counter()
    response = client.post("/v1/corrections", json={"runId": run_id, "items": items})
    if response.status_code != 201:
        raise RuntimeError(f"POST /v1/corrections: {response.status_code} {response.text[:300]}")
    return time.perf_counter() - began


def measure(lab: Lab, what: str, target: str) -> list[Row]:
    """Replace a 14,000-item correction while another client reads `/health` and a list."""
    server = lab.start(lab.pack("stall"), "--models", str(WIDE_MODELS))
    body = {"agent": seed.AGENT, "input": {"userMessage": seed.QUESTIONS[0]}}
    with server.client() as writer, server.client() as reader:
        run_id = writer.post("/v1/runs", json=body).json()["id"]
        _correct(writer, run_id, "right")
        done = threading.Event()
        times: dict[str, list[float]] = {"/health": [], "/v1/runs": []}
        with ThreadPoolExecutor(1) as pool:
            replacing = pool.submit(_correct, writer, run_id, "wrong")
            replacing.add_done_callback(lambda _: done.set())
            while not done.is_set():
                for path, taken in times.items():
                    began = time.perf_counter()
                    reader.get(path, params={"limit": 25} if path != "/health" else None)
                    if not done.is_set():
                        taken.append(ms(time.perf_counter() - began))
            write_s = replacing.result()
    lab.stop(server)
    health, listed = times["/health"], times["/v1/runs"]
    if not health or not listed:
        raise RuntimeError("the write ended before any read was measured")
    worst = max(max(health), max(listed))
    say(f"  replace {ITEMS} items: {write_s:.2f} s; reads meanwhile: {len(health)} + {len(listed)}")
    measured = (f"during a {write_s:.1f} s replace of {ITEMS:,} items: `/health` p50 "
                f"{percentile(health, 50):.1f} ms, max {max(health):.1f} ms; runs list p50 "
                f"{percentile(listed, 50):.1f} ms, max {max(listed):.1f} ms")  # fmt: skip
    return [Row(what, target, measured, worst < TARGET_MS)]
