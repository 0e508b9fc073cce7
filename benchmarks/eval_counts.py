"""What an eval run of N test-set cases costs, counted so the machine's load doesn't move it:
SQL statements and transactions a case, CPU a case (every thread of the process), the
summary's CPU, and the bytes each table grew a case (#29).

In-process (the app on a temp folder, as the tests build it, no pack service): N corrected
runs are copied through the store, as row 11 copies them, then 0.2.0 is tried on the
agent's test set and waited for.

    .venv/bin/python benchmarks/eval_counts.py 5000
"""

from __future__ import annotations

import collections
import re
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "api")]

import scale  # noqa: E402
from factories import AGENT, served, tutorial_runs  # noqa: E402
from test_eval_runs import correct_tutorial, models_file  # noqa: E402

from kindgi_dev.services.eval_runs import execute  # noqa: E402
from kindgi_dev.store.db import Database  # noqa: E402

SHAPE = re.compile(r"'(?:[^']|'')*'|\b\d+\b")


def table_bytes(db: Database) -> dict[str, int]:
    """Bytes each table and index takes (its pages, as committed)."""
    rows = db.all("SELECT name, sum(pgsize) AS size FROM dbstat GROUP BY name")
    return {row["name"]: row["size"] for row in rows}


def seeded(db: Database, run_ids: list[str], cases: int) -> None:
    """Corrected copies of the tutorial's runs until the test set has `cases` cases."""
    runs = [scale.run_template(db, r) for r in run_ids]
    rows = db.all("SELECT id, run_id FROM corrections")
    corrections = {row["run_id"]: scale.correction_template(db, row["id"]) for row in rows}
    stamps = scale.Stamps(datetime.now(UTC) - timedelta(days=30))

    def write(n: int) -> None:
        at = stamps.next()
        template = runs[n % len(runs)]
        run_id = scale.copy_run(db, template, at)
        scale.copy_correction(db, corrections[template.run.id], run_id, "seed", at)

    scale.in_batches(db, len(run_ids), cases, write)


def thread_timed(spent: dict[str, float], name: str, call: Callable[..., Any]) -> Any:
    """`call`, adding the CPU its thread spent in it to `spent[name]`."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.thread_time() - began

    return timed


def main(cases: int) -> None:
    """Seed, run, print the counts."""
    folder = Path(tempfile.mkdtemp())
    with served(folder, ("0.1.0", "0.2.0"), models_file(folder, "same-search")) as (client, ctx):
        runs = tutorial_runs(ctx)
        correct_tutorial(client, runs)
        project = client.get("/v1/projects/default").json()["id"]
        seeded(ctx.db, list(runs.values()), cases)
        before = table_bytes(ctx.db)
        shapes: collections.Counter[str] = collections.Counter()
        ctx.db.trace(lambda sql: shapes.update([SHAPE.sub("?", sql)[:100]]))
        spent: dict[str, float] = {}
        execute.summarize = thread_timed(spent, "summary", execute.summarize)  # type: ignore[assignment]
        began, cpu = time.perf_counter(), time.process_time()
        body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}}
        run_id = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body).json()["runId"]
        while (run := client.get(f"/v1/eval-runs/{run_id}").json())["status"] == "running":
            time.sleep(0.05)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        ctx.db.trace(None)
        grown = {k: v - before.get(k, 0) for k, v in table_bytes(ctx.db).items()}
    done = run["result"]["summary"]["cases"]
    summary = spent.get("summary", 0.0)
    print(f"{done:,} cases, {run['status']}: CPU {cpu / cases * 1e3:.2f} ms a case (the summary"
          f" {summary:.2f} s of it), wall {wall / cases * 1e3:.2f} ms a case")  # fmt: skip
    begins = sum(n for shape, n in shapes.items() if shape.startswith("BEGIN"))
    print(f"statements {sum(shapes.values()) / cases:.2f} a case (each row of an executemany"
          f" one), transactions {begins / cases:.3f} a case")  # fmt: skip
    for shape, n in shapes.most_common(12):
        print(f"  {n / cases:7.2f}  {shape}")
    print(f"database grew {sum(grown.values()) / cases:,.0f} bytes a case:")
    for name, size in sorted(grown.items(), key=lambda item: -item[1])[:10]:
        print(f"  {size / cases:7,.0f}  {name}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
