"""Where row 11's "memory after an eval run" goes: one `kindgi dev`, the same eval run of N
cases twice, the RSS split as the kernel keeps it (anonymous, file-backed) after each, and
the mappings that grew most during the first run (`/proc/<pid>/smaps`, by start address).

A run's first time pays what later runs reuse (the code it imports, the threads it
starts and their C allocators' arenas); the second run's growth is what a run leaves.

    .venv/bin/python benchmarks/after_run.py 5000
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import scale
from lab import Lab, Sizes

MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$")


def status(pid: int) -> dict[str, int]:
    """RssAnon, RssFile (kB) and Threads from /proc/<pid>/status."""
    wanted = ("RssAnon", "RssFile", "Threads")
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in wanted:
            found[key] = int(value.split()[0])
    return found


def mappings(pid: int) -> dict[int, tuple[int, str, int]]:
    """Each mapping by its start: (size in bytes, what maps it, resident kB)."""
    found: dict[int, tuple[int, str, int]] = {}
    start = 0
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if matched := MAPPING.match(line):
            start, end = int(matched[1], 16), int(matched[2], 16)
            found[start] = (end - start, matched[3] or "[anon]", 0)
        elif line.startswith("Rss:"):
            size, name, _ = found[start]
            found[start] = (size, name, int(line.split()[1]))
    return found


def grown(before: dict[int, tuple[int, str, int]], after: dict[int, tuple[int, str, int]]) -> str:
    """The mappings whose resident size grew most, one a line."""
    rows = []
    for start, (size, name, rss) in after.items():
        was = before.get(start, (0, "", 0))[2]
        if rss - was > 100:
            rows.append((rss - was, f"  +{rss - was:6,} kB  {size / 2**20:7.2f} MiB at {start:x}"
                                    f"  {name}"))  # fmt: skip
    return "\n".join(text for _, text in sorted(rows, reverse=True)[:10])


def main(cases: int) -> None:
    """Seed `cases` corrected runs, start, run twice, print."""
    lab = Lab(Path(tempfile.mkdtemp(prefix="kindgi-after-run-")), Sizes())
    try:
        pack, project, run_ids, correction_ids = scale.recorded_through_api(lab, "after", 3)
        stamps = scale.Stamps(datetime.now(UTC) - timedelta(days=30))
        with scale.store_of(pack) as db:
            runs = [scale.run_template(db, r) for r in run_ids]
            corrections = [scale.correction_template(db, c) for c in correction_ids]

            def write(n: int) -> None:
                at = stamps.next()
                run_id = scale.copy_run(db, runs[n % 3], at)
                scale.copy_correction(db, corrections[n % 3], run_id, "seed", at)

            scale.in_batches(db, 3, cases, write)
        server = lab.start(pack)
        with server.client() as client:
            client.get(f"/v1/eval-runs/{uuid.UUID(int=0)}")  # as row 11 does before idling
        time.sleep(3)
        print(f"idle: {status(server.pid)}")
        before = mappings(server.pid)
        for turn in (1, 2):
            result = scale.timed_cli_like(server, project, cases, 1.0, scale.POLL_S)
            print(f"run {turn}: RSS {result.idle_mb:.1f} → {result.after_mb:.1f} MB "
                  f"(+{result.after_mb - result.idle_mb:.1f}), peak {result.peak_mb:.0f} MB; "
                  f"{status(server.pid)}")  # fmt: skip
            if turn == 1:
                print(grown(before, mappings(server.pid)))
    finally:
        lab.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5_000)
