"""What a correction through the API costs, counted so the machine's load doesn't move it:
COMMITs and statements a correction under `wrk` with 4 connections, and the process's CPU
a correction (#29 point 2).

In-process: the app on a temp folder, as the tests build it (no pack service), served by
uvicorn in a thread; the tutorial's runs recorded, then `wrk` posts corrections of one of
them, each by its own participant, as row 4 posts them.

    .venv/bin/python benchmarks/write_counts.py 8
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests")]

from factories import served, tutorial_runs  # noqa: E402
from lab import WRK_SCRIPT  # noqa: E402
from serving import serve_app  # noqa: E402


def main(seconds: int) -> None:
    """Post corrections with wrk for `seconds`; print the counts."""
    if shutil.which("wrk") is None:
        raise SystemExit("install wrk (Debian: apt-get install wrk)")
    folder = Path(tempfile.mkdtemp(prefix="kindgi-writes-"))
    with served(folder) as (client, ctx), serve_app(client.app) as url:
        password_run = next(iter(tutorial_runs(ctx).values()))  # its first article: kb-101
        script = folder / "corrections.lua"
        script.write_text(WRK_SCRIPT % {"token": ctx.identity.token, "run": password_run})
        kinds: collections.Counter[str] = collections.Counter()
        ctx.db.trace(lambda sql: kinds.update([sql.split(None, 1)[0].upper()]))
        cpu = time.process_time()
        done = subprocess.run(
            ["wrk", "-t1", "-c4", f"-d{seconds}s", "-s", str(script), url],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        cpu = time.process_time() - cpu
        ctx.db.trace(None)
    if "Non-2xx" in done.stdout:
        raise SystemExit(f"wrk got refusals:\n{done.stdout}")
    found = re.search(r"(\d+) requests in", done.stdout)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    assert found is not None and rate is not None, done.stdout
    count = int(found.group(1))
    per = cpu / count * 1e3
    print(f"{count:,} corrections, {float(rate.group(1)):,.0f}/s in-process; CPU {per:.2f} ms")
    print(f"COMMITs {kinds['COMMIT'] / count:.2f} a correction; statements a correction:")
    for kind, n in kinds.most_common():
        print(f"  {n / count:6.2f}  {kind}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
