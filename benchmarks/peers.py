"""The eval-run benchmark side by side with promptfoo and Arize Phoenix (#29 point 5).

The same work through each tool: N corrected cases of the example's article picker, the
deterministic candidate (0.1.0's first three articles of the recorded search), each case
scored by the share of its answer marked right, and a summary. Ours is measured as
`run.py`'s eval-run row measures it: `kindgi dev` started on the seeded pack, an eval run
of 0.1.0 on the agent's test set, polled each second, its own start-to-end time. A peer
runs only when it is installed in the cache folder (`benchmarks/README.md` says how), in a
network namespace whose only interface is loopback. The tools take turns run by run.
Prints a markdown table on stdout, progress on stderr. Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import peers_phoenix
import peers_promptfoo
import peers_work
from lab import Lab, Sizes, ms, say
from rows import machine_line
from run import compile_package, descendants
from scale import (
    Stamps,
    copy_correction,
    copy_run,
    correction_template,
    in_batches,
    recorded_through_api,
    run_template,
    store_of,
    timed_cli_like,
)

from kindgi_dev.store.db import Database

OURS, PROMPTFOO, PHOENIX = "kindgi dev", f"promptfoo {peers_promptfoo.VERSION}", "Arize Phoenix"
IDLE_S = 1.0
"""How long `kindgi dev` idles after its start before the eval run (run.py's row: 3 s)."""


@dataclass
class Figures:
    """Every run of one tool at one size."""

    per_case_ms: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def peak_mb(pid: int) -> float:
    """The peak resident memory (VmHWM) of a process and its descendants, added up."""
    total = 0.0
    for each in [pid, *descendants(pid)]:
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1]) / 1024
    return total


class Seeded:
    """The pack our eval runs read: 3 runs through the API, corrected, then store copies."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.pack, self.project, run_ids, correction_ids = recorded_through_api(lab, "peers", 3)
        with store_of(self.pack) as db:
            self.runs = [run_template(db, r) for r in run_ids]
            self.corrections = [correction_template(db, c) for c in correction_ids]
        self.have = len(run_ids)
        self.stamps = Stamps(datetime.now(UTC) - timedelta(days=30))

    def grow(self, size: int) -> None:
        """Corrected runs copied until the agent's test set has `size` cases."""
        with store_of(self.pack) as db:

            def write(n: int, db: Database = db) -> None:
                at = self.stamps.next()
                run_id = copy_run(db, self.runs[n % 3], at)
                copy_correction(db, self.corrections[n % 3], run_id, "seed", at)

            in_batches(db, self.have, size, write)
        self.have = size

    def measure(self, size: int, figures: Figures) -> None:
        """One eval run of `size` cases on a freshly started `kindgi dev`."""
        server = self.lab.start(self.pack)
        try:
            result = timed_cli_like(server, self.project, size, IDLE_S)
            figures.peak_mb.append(peak_mb(server.pid))
        finally:
            self.lab.stop(server)
        figures.per_case_ms.append(result.per_case_ms)


def measure_promptfoo(root: Path, size: int, figures: Figures) -> None:
    """One `promptfoo eval --no-cache` of `size` cases, CLI start included."""
    folder = root / f"promptfoo-{size}-{time.monotonic_ns()}"
    cost, mean = peers_promptfoo.run(folder, peers_work.cases(size))
    figures.per_case_ms.append(ms(cost.seconds) / size)
    figures.peak_mb.append(cost.peak_mb)
    figures.notes.append(f"mean score {mean:.3f}")


def measure_phoenix(root: Path, cases_file: Path, size: int, figures: Figures) -> None:
    """One Phoenix experiment of `size` cases: `run_experiment`'s own time."""
    folder = root / f"phoenix-{size}-{time.monotonic_ns()}"
    result = peers_phoenix.run(folder, cases_file, size)
    figures.per_case_ms.append(ms(result.experiment_s) / size)
    figures.peak_mb.append(result.peak_mb)
    figures.notes.append(f"server start {result.start_s:.1f} s, dataset upload "
                         f"{result.upload_s:.1f} s, whole {result.seconds:.1f} s, "
                         f"mean score {result.mean:.3f}")  # fmt: skip


def spread(values: list[float], digits: int) -> str:
    """`3.6` or `3.6 (3.3–4.1)` with more than one value."""
    middle = f"{statistics.median(values):,.{digits}f}"
    if len(values) < 2:
        return middle
    return f"{middle} ({min(values):,.{digits}f}–{max(values):,.{digits}f})"


def ratio(value: list[float], ours: list[float]) -> str:
    """The median over ours's median, `1.00×`."""
    return f"{statistics.median(value) / statistics.median(ours):.2f}×" if ours else "—"


WHAT = {
    OURS: "eval run's own start to end",
    PROMPTFOO: "`eval --no-cache`, CLI start included",
    PHOENIX: "`run_experiment`; server start and upload apart",
}


def table(results: dict[int, dict[str, Figures]]) -> str:
    """The markdown table: per case, peak RSS, ratios to ours, at each size."""
    lines = [
        "| cases | tool (what is timed) | per case, ms, median (min–max) | × ours | "
        "peak RSS, MB | × ours | notes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for size, tools in results.items():
        ours = tools[OURS]
        for name, figures in tools.items():
            notes = "; ".join(dict.fromkeys(figures.notes)) if name != PHOENIX else (
                figures.notes[-1] if figures.notes else "")  # fmt: skip
            lines.append(
                f"| {size:,} | {name} ({WHAT[name]}) | {spread(figures.per_case_ms, 2)} | "
                f"{ratio(figures.per_case_ms, ours.per_case_ms)} | {spread(figures.peak_mb, 0)} "
                f"| {ratio(figures.peak_mb, ours.peak_mb)} | {notes} |"
            )
    return "\n".join(lines)


def parse_sizes(value: str) -> list[int]:
    """`100,1000` → [100, 1000], ascending."""
    try:
        sizes = sorted({int(part.replace("_", "")) for part in value.split(",") if part})
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"sizes are numbers, got {value!r}") from error
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"sizes are positive, got {value!r}")
    return sizes


def main(argv: list[str] | None = None) -> int:
    """Measure each installed tool at each size, in turns, and print the table."""
    parser = argparse.ArgumentParser(description="kindgi dev's eval run beside its peers.")
    parser.add_argument("--sizes", type=parse_sizes, default=[100, 1000], help="e.g. 100,1000")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tool at each size")
    args = parser.parse_args(argv)
    unshare = subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    tools = [OURS]
    for name, present in ((PROMPTFOO, peers_promptfoo.installed()),
                          (PHOENIX, peers_phoenix.installed())):  # fmt: skip
        if present and unshare:
            tools.append(name)
        else:
            say(f"{name}: {'not installed' if not present else 'unshare -n refused'}, skipped")
    load = os.getloadavg()
    compile_package()
    results: dict[int, dict[str, Figures]] = {}
    turn = 0
    with tempfile.TemporaryDirectory(prefix="kindgi-peers-") as folder:
        root = Path(folder)
        lab = Lab(root, Sizes())
        try:
            seeded = Seeded(lab)
            for size in args.sizes:
                say(f"{size:,} cases: seeding…")
                seeded.grow(size)
                cases_file = peers_work.write_cases(root, size)
                measures: dict[str, Callable[[Figures], None]] = {
                    OURS: partial(seeded.measure, size),
                    PROMPTFOO: partial(measure_promptfoo, root, size),
                    PHOENIX: partial(measure_phoenix, root, cases_file, size),
                }
                results[size] = {name: Figures() for name in tools}
                for _ in range(args.repeat):
                    for name in tools[turn % len(tools) :] + tools[: turn % len(tools)]:
                        say(f"  {name}, {size:,} cases…")
                        figures = results[size][name]
                        measures[name](figures)
                        say(f"    {figures.per_case_ms[-1]:.2f} ms/case, "
                            f"peak {figures.peak_mb[-1]:.0f} MB")  # fmt: skip
                    turn += 1
        finally:
            lab.close()
    print(table(results))
    print(f"\n{machine_line(load)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
