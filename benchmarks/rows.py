"""What every row of the table is made of, and the measures several rows take."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    """One line of the table; `ok` is None when nothing was measured."""

    what: str
    target: str
    measured: str
    ok: bool | None


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank `q`th percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def rss_mb(pid: int) -> float:
    """A process's resident memory, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user + system), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def python_speed_s() -> float:
    """Seconds this machine's Python takes to add up ten million numbers in a loop, the
    best of three: tables from different machines (or one machine on a busy day) compare
    only after this figure, since every row is Python on a CPU someone else may share."""
    best = math.inf
    for _ in range(3):
        began = time.perf_counter()
        total = 0
        for number in range(10_000_000):
            total += number
        best = min(best, time.perf_counter() - began)
    return best


def machine_line(began_load: tuple[float, float, float]) -> str:
    """The line printed under a table: cores, Python's speed, load average at start and end."""
    now = os.getloadavg()
    return (
        f"machine: {os.cpu_count()} cores; Python loop of 10M additions {python_speed_s():.2f} s "
        f"(best of 3); load average {began_load[0]:.2f} at start, {now[0]:.2f} at end"
    )
