"""Benchmarks of `kindgi dev` against DESIGN.md's performance targets: one command, one table.

    .venv/bin/python benchmarks/run.py [--quick] [--only 3,4] [--large]

Each row starts the real `kindgi dev` as a subprocess on a temp copy of
examples/article-picker, on 127.0.0.1 only, with no provider keys in its environment.
Progress goes to stderr, the markdown table to stdout; the exit code is 0 even when a
target is missed (the table says so). See benchmarks/README.md for what each row measures.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import bulk
import console_pages
import flow_replay
import httpx
import seed
import stall
from devserver import CLOSE, DevServer, clean_env
from lab import QUICK, Lab, Sizes, ms, say, timed_eval
from live_run import row_live_run
from model_stub import ModelStub
from rows import Row, machine_line, percentile, rss_mb
from scale import LARGE_CASES, row_eval_scale, row_test_set_scale

HERE = Path(__file__).resolve().parent
MODEL_LATENCY_S = 0.2


def eval_remarks(summary: dict[str, Any], cases: int, provider: str) -> str:
    """What was not as expected in an eval run's summary (empty when all was)."""
    remarks = [f"{summary[k]} {k}" for k in ("errors", "diverged", "refusedWrites") if summary[k]]
    if summary["cases"] != cases:
        remarks.append(f"{summary['cases']} of {cases} cases")
    answered = {m["providerId"] for m in summary["sampling"]["models"]}
    if answered != {provider}:
        remarks.append(f"answered by {', '.join(sorted(answered))}")
    return f" ⚠ {'; '.join(remarks)}" if remarks else ""


def row_start(lab: Lab) -> list[Row]:
    """1: cold starts, each on a fresh copy, then a warm one on the same copy (its index
    kept under `.kindgi/dev/` from the cold one, no file changed)."""
    cold, warm = [], []
    for attempt in range(lab.sizes.starts):
        pack = lab.pack("start")
        for kind, times in (("cold", cold), ("warm", warm)):
            server = lab.start(pack)
            times.append(server.start_s)
            say(f"  start {attempt + 1} ({kind}): {server.start_s:.2f} s")
            lab.stop(server)
    return [
        Row(f"{WHAT[1]}, cold", "< 1 s", _spread(cold), statistics.median(cold) < 1.0),
        Row(f"{WHAT[1]}, warm (index cached)", "< 0.5 s", _spread(warm),
            statistics.median(warm) < 0.5),
    ]  # fmt: skip


def _spread(times: list[float]) -> str:
    median = statistics.median(times)
    return f"median {median:.2f} s (min {min(times):.2f}, max {max(times):.2f}; n={len(times)})"


def row_save(lab: Lab) -> list[Row]:
    """2: edit the agent's version, time until the versions list has it."""
    server = lab.start(lab.pack("save"))
    agent_file = server.pack / "agents" / "article_picker.py"
    source = agent_file.read_text()
    times = []
    with server.client() as client:
        for k in range(1, lab.sizes.saves + 1):
            time.sleep(0.5)
            version = f"0.1.{k}"
            edited = re.sub(r'version="[^"]*"', f'version="{version}"', source, count=1)
            began = time.perf_counter()
            agent_file.write_text(edited)
            while version not in listed_versions(server, client):
                if time.perf_counter() - began > 30:
                    raise RuntimeError(f"{version} was not listed within 30 s")
                time.sleep(0.02)
            times.append(time.perf_counter() - began)
            say(f"  {version}: listed after {times[-1]:.2f} s")
    lab.stop(server)
    median = statistics.median(times)
    measured = f"median {median:.2f} s (min {min(times):.2f}, max {max(times):.2f}; n={len(times)})"
    return [Row(WHAT[2], TARGET[2], measured, median < 0.5)]


def listed_versions(server: DevServer, client: httpx.Client) -> set[str]:
    """The agent's versions the API lists."""
    page = server.poll(client, f"/v1/agents/{seed.AGENT}/versions", limit=100)
    return {agent["version"] for agent in page["data"]}


def row_test_set(lab: Lab) -> list[Row]:
    """3: read the test set of every recorded correction, with a keep-alive client."""
    load = lab.correction_load()
    say(f"  {lab.sizes.reads} reads of the test set and its first cases page…")
    with load.server.client() as client:
        reads = [seed.read_test_set(client, load.project) for _ in range(lab.sizes.reads)]
        fresh = [seed.read_test_set(client, load.project, CLOSE) for _ in range(lab.sizes.fresh)]
    total = [ms(a + b) for a, b, _ in reads]
    p50 = percentile(total, 50)
    measured = (
        f"p50 {p50:.1f} ms, p99 {percentile(total, 99):.1f} ms (set "
        f"{percentile([ms(a) for a, _, _ in reads], 50):.1f} + cases page "
        f"{percentile([ms(b) for _, b, _ in reads], 50):.1f} ms; a new connection each: "
        f"p50 {percentile([ms(a + b) for a, b, _ in fresh], 50):.1f} ms)"
    )
    what = f"read an agent's test set of {reads[-1][2]:,} corrections (set + cases page)"
    return [Row(what, TARGET[3], measured, p50 < 10)]


def row_correction(lab: Lab) -> list[Row]:
    """4: single sequential POSTs, and the rate with concurrent keep-alive clients."""
    load = lab.correction_load()
    p50 = percentile(load.sequential_ms, 50)
    measured = (
        f"p50 {p50:.1f} ms, p99 {percentile(load.sequential_ms, 99):.1f} ms "
        f"(n={len(load.sequential_ms)}; a new connection each: p50 "
        f"{percentile(load.fresh_ms, 50):.1f} ms); {load.rate:,.0f}/s from "
        f"{lab.sizes.clients} Python clients"
    )
    rate = load.rate
    if load.wrk_rate is not None:
        rate = load.wrk_rate
        measured += (
            f"; {rate:,.0f}/s sustained with wrk ({lab.sizes.wrk_seconds} s, 4 conns; "
            f"server CPU {load.wrk_cpu_ms:.2f} ms per correction)"
        )
    else:
        measured += "; install wrk for the sustained rate"
    return [Row(WHAT[4], TARGET[4], measured, p50 < 3 and rate >= 3000)]


def row_replay(lab: Lab) -> list[Row]:
    """5: an eval run of the recorded version, function model, every tool call recorded."""
    suite = lab.corrected_suite()
    say(f"  eval run on {suite.cases} cases, function model…")
    seconds, summary, concurrency = timed_eval(lab, suite)
    remarks = eval_remarks(summary, suite.cases, "function")
    say(f"  eval run on {suite.cases} cases, no-op model…")
    noop_s, _, _ = timed_eval(lab, suite, "--models", str(HERE / "noop_models.py"))
    per_case = ms(seconds) / suite.cases
    measured = (
        f"{per_case:.1f} ms/case ({suite.cases} cases in {seconds:.2f} s, concurrency "
        f"{concurrency or '—'}); no-op model: {ms(noop_s) / suite.cases:.1f} ms/case{remarks}"
    )
    return [Row(WHAT[5], TARGET[5], measured, per_case < 1)]


def row_slow_model(lab: Lab) -> list[Row]:
    """6: the same eval run at the defaults with an OpenAI-compatible model of 200 ms."""
    suite = lab.corrected_suite()
    pyproject = suite.pack / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.kindgi-dev.providers]\ndefault = "openai"\n'
    )
    with ModelStub(MODEL_LATENCY_S) as stub:
        env = clean_env(OPENAI_API_KEY="x", OPENAI_BASE_URL=stub.base_url)
        say(f"  eval run on {suite.cases} cases, 200 ms model, default concurrency…")
        seconds, summary, concurrency = timed_eval(lab, suite, env=env)
    floor = suite.cases * 2 * MODEL_LATENCY_S / (concurrency or 1)
    measured = (
        f"{seconds:.1f} s at concurrency {concurrency or '—'} (the default; floor {floor:.1f} s: "
        f"two model calls per case){eval_remarks(summary, suite.cases, 'openai')}"
    )
    what = f"{suite.cases} cases, model of 200 ms latency, default settings"
    return [Row(what, TARGET[6], measured, seconds < 10)]


def descendants(pid: int) -> list[int]:
    """The ids of a process's children, their children, and so on."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found: list[int] = []
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found.extend(sorted(frontier))
    return found


def row_memory(lab: Lab) -> list[Row]:
    """7: resident memory after start and a few idle seconds."""
    server = lab.start(lab.pack("idle"))
    time.sleep(lab.sizes.idle_s)
    own = rss_mb(server.pid)
    children = [rss_mb(pid) for pid in descendants(server.pid)]
    lab.stop(server)
    measured = (
        f"{own:.0f} MB kindgi dev; pack service {sum(children):.0f} MB "
        f"({len(children)} process{'es' if len(children) != 1 else ''}); "
        f"total {own + sum(children):.0f} MB"
    )
    return [Row(WHAT[7], TARGET[7], measured, own + sum(children) < 100)]


def row_flow_replay(lab: Lab) -> list[Row]:
    """9: an eval run of the recorded flow version, every node's call recorded."""
    measured, per_node = flow_replay.measure(lab)
    return [Row(WHAT[9], TARGET[9], measured, per_node < 1)]


def row_console(lab: Lab) -> list[Row]:
    """8: each console page's p50 on rows 3 and 4's instance."""
    measured, ok = console_pages.measure(lab, min(lab.sizes.reads, 50))
    return [Row(WHAT[8], TARGET[8], measured, ok)]


WHAT = {
    1: "`kindgi dev` start → `/health` answering, pack indexed",
    2: "save with a new `version` → listed by the API",
    3: "read an agent's test set of 10,000 corrections (set + cases page)",
    4: "record a correction through the API",
    5: "eval run per case, function model, recorded tools",
    6: "200 cases with a model of 200 ms latency",
    7: "idle memory (after start + 3 s)",
    8: "each console page with 10,000 corrections stored",
    9: "eval run of a flow per case and node, recorded tools",
    10: "test-set reads and database size as corrections grow",
    11: "eval runs as cases grow: cost per case, polls, memory, database growth",
    12: "a live run, function model",
    13: "`/health` and a runs list while a 14,000-item correction is replaced",
    14: "bulk paths: a batch of corrections, a test-set file's import",
}
TARGET = {
    1: "< 1 s cold, < 0.5 s warm",
    2: "< 0.5 s",
    3: "p50 < 10 ms",
    4: "p50 < 3 ms, ≥ 3,000/s sustained",
    5: "< 1 ms",
    6: "< 10 s",
    7: "< 100 MB RSS, process tree",
    8: "p50 < 100 ms",
    9: "< 1 ms per node",
    10: "p50 < 10 ms at 100,000, within 1.5× of 1,000 (each run corrected by thousands); "
    "< 15 MB per 10,000",
    11: "< 1 ms and flat (1.3×) per case, polls p50 < 5 ms, peak RSS < 150 MB at 50,000, "
    "memory within 10 MB of idle, < 3 kB a replayed case",
    12: "p50 < 3 ms beyond model and tools",
    13: "each read < 100 ms",
    14: bulk.TARGET,
}
ROWS: dict[int, Callable[[Lab], list[Row]]] = {
    1: row_start,
    2: row_save,
    3: row_test_set,
    4: row_correction,
    5: row_replay,
    6: row_slow_model,
    7: row_memory,
    8: row_console,
    9: row_flow_replay,
    10: row_test_set_scale,
    11: row_eval_scale,
    12: row_live_run,
    13: lambda lab: stall.measure(lab, WHAT[13], TARGET[13]),
    14: lambda lab: bulk.row_bulk(lab.sizes.bulk_corrections),
}


def measure(number: int, lab: Lab) -> list[Row]:
    """One row of DESIGN.md's table (two for row 6); a failure becomes an `n/a` row."""
    say(f"[{number}] {WHAT[number]}")
    began = time.perf_counter()
    try:
        rows = ROWS[number](lab)
    except Exception as error:
        say(f"[{number}] failed: {error}")
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        return [Row(WHAT[number], TARGET[number], f"n/a ({first_line[:120]})", None)]
    say(f"[{number}] done in {time.perf_counter() - began:.1f} s")
    return rows


def table(rows: list[Row]) -> str:
    """The markdown table."""
    lines = ["| what | target | measured | ok |", "| --- | --- | --- | --- |"]
    for row in rows:
        mark = "—" if row.ok is None else "✓" if row.ok else "✗"
        cells = (row.what, row.target, row.measured, mark)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def parse_only(value: str) -> list[int]:
    """`--only 3,4` → [3, 4]."""
    numbers = sorted({int(part) for part in value.split(",") if part.strip()})
    unknown = [n for n in numbers if n not in ROWS]
    if unknown or not numbers:
        raise argparse.ArgumentTypeError(f"rows are 1–{len(ROWS)}, got {value!r}")
    return numbers


def compile_package() -> None:
    """Write kindgi_dev's bytecode first, as a regular pip install does.

    An editable install leaves none, and with PYTHONDONTWRITEBYTECODE set every start
    would compile the whole package again: that is not what a user's start costs.
    """
    compileall.compile_dir(str(HERE.parent / "kindgi_dev"), quiet=1)


def main(argv: list[str] | None = None) -> int:
    """Measure the selected rows and print the table."""
    parser = argparse.ArgumentParser(
        description="Measure kindgi dev against DESIGN.md's performance targets."
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, smaller sizes")
    parser.add_argument("--only", type=parse_only, default=sorted(ROWS), help="rows, e.g. 3,4")
    parser.add_argument(
        "--large", action="store_true", help=f"row 11 at {LARGE_CASES:,} cases too (minutes)"
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    if args.large:
        sizes = replace(sizes, scale_cases=(*sizes.scale_cases, LARGE_CASES))
    began, load = time.perf_counter(), os.getloadavg()
    compile_package()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="kindgi-bench-") as root:
        lab = Lab(Path(root), sizes)
        try:
            for position, number in enumerate(args.only):
                rows.extend(measure(number, lab))
                if not {3, 4, 8} & set(args.only[position + 1 :]):
                    lab.drop_correction_load()
        finally:
            lab.close()
    print(table(rows))
    print(f"\n{machine_line(load)}")
    say(f"benchmarks done in {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
