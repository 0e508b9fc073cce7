"""Row 14: the bulk paths for seeding and imports (#29 point 3), in-process.

An app on a temp folder, as the tests build one (no pack service), the tutorial's three
runs recorded; then, timed: N corrections of them through `correction_batches.create_many`
(each by its own participant, the first article right), and a tenth as many through
`corrections.create` one by one, for comparison. The agent's test set (N cases and more)
is frozen and exported as a file, and the file imported into a second instance
(`test_set_files.import_file`, as `POST /v1/test-sets/import` stores it), timed. Then,
untimed, the statements SQLite runs a correction on each path (traced: a trigger's body
counts as one more), over a hundred of each.

    .venv/bin/python benchmarks/bulk.py 20000
"""

from __future__ import annotations

import cProfile
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests")]

from factories import AGENT, QUESTIONS, recorded_run, served, tutorial_runs  # noqa: E402
from rows import Row  # noqa: E402

from kindgi_dev.domain.expectations import GivenItem  # noqa: E402
from kindgi_dev.services import corrections, test_set_files  # noqa: E402
from kindgi_dev.services.context import Context  # noqa: E402
from kindgi_dev.services.correction_batches import NewCorrection, create_many  # noqa: E402

TARGET = "≥ 20,000 cases/s"


def batch(runs: dict[str, str], count: int, prefix: str) -> list[NewCorrection]:
    """`count` corrections of the runs in turn, each by its own participant."""
    made = []
    questions = list(runs)
    for n in range(count):
        question = questions[n % len(questions)]
        items = tuple(
            GivenItem(key, f"/output/articles/{rank}", "right" if rank == 0 else "wrong", rank)
            for rank, key in enumerate(QUESTIONS[question])
        )
        made.append(NewCorrection(runs[question], items, participant_id=f"{prefix}-{n}"))
    return made


def spread(ctx: Context, count: int) -> list[NewCorrection]:
    """`count` corrections each of a run of its own, verdicts alternating by correction: no
    two share a run or items, as an import from another tool's records would be."""
    questions = list(QUESTIONS)
    made = []
    for n in range(count):
        question = questions[n % len(questions)]
        items = tuple(
            GivenItem(key, f"/output/articles/{rank}", "right" if (rank + n) % 2 else "wrong", rank)
            for rank, key in enumerate(QUESTIONS[question])
        )
        made.append(NewCorrection(recorded_run(ctx, question), items, participant_id=f"s-{n}"))
    return made


PROFILE: list[cProfile.Profile] = []
"""Set by `--profile`: each timed part is profiled, and its top lines printed."""


def rate(count: int, work: Callable[[], object]) -> float:
    """`count` over the seconds `work` took; its CPU seconds go to `CPU`."""
    began, cpu = time.perf_counter(), time.process_time()
    if PROFILE:
        PROFILE[0].runcall(work)
    else:
        work()
    CPU.append(count / (time.process_time() - cpu))
    return count / (time.perf_counter() - began)


CPU: list[float] = []
"""Each timed part's count over its process CPU seconds: what the machine's load moves less."""


def statements(ctx: Context, runs: dict[str, str]) -> tuple[float, float]:
    """Statements a correction (a trigger's body counted as one) in a batch, one by one."""
    traced: list[str] = []
    ctx.db.trace(traced.append)
    create_many(ctx, batch(runs, 100, "traced-batch"))
    in_batch = len(traced) / 100
    traced.clear()
    for given in batch(runs, 100, "traced-single"):
        corrections.create(
            ctx, given.run_id, items=given.items, participant_id=given.participant_id
        )
    ctx.db.trace(None)
    return in_batch, len(traced) / 100


STATEMENTS: list[tuple[float, float]] = []
"""The last measure's statements a correction, in a batch and one by one."""


def measure(count: int) -> tuple[float, float, float, float, int]:
    """(corrections/s in a batch of the spec's three runs, in a batch of as many runs, one by
    one; cases/s of the file's import; its cases)."""
    root = Path(tempfile.mkdtemp(prefix="kindgi-bulk-"))
    (root / "a").mkdir()
    (root / "b").mkdir()
    with served(root / "a") as (client, ctx), served(root / "b") as (_, other):
        runs = tutorial_runs(ctx)
        batched = rate(count, lambda: create_many(ctx, batch(runs, count, "batch")))
        own = spread(ctx, count // 10)
        spread_out = rate(len(own), lambda: create_many(ctx, own))

        def one_by_one() -> None:
            for given in batch(runs, count // 10, "single"):
                corrections.create(
                    ctx, given.run_id, items=given.items, participant_id=given.participant_id
                )

        single = rate(count // 10, one_by_one)
        frozen = client.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
        exported = client.get(f"/v1/test-sets/{frozen['testSetId']}/versions/1.0.0/export")
        data = json.loads(exported.content)
        cases = len(data["cases"])
        imported = rate(cases, lambda: test_set_files.import_file(other, data, "bench.json"))
        STATEMENTS.append(statements(ctx, runs))
    return batched, spread_out, single, imported, cases


def row_bulk(count: int) -> list[Row]:
    """Row 14's cell: both bulk paths' rates beside the one-by-one path's."""
    batched, spread_out, single, imported, cases = measure(count)
    cpu = CPU[-4:]
    measured = (
        f"{batched:,.0f} corrections/s in a batch of {count:,} on the spec's 3 runs, "
        f"{spread_out:,.0f}/s in a batch of {count // 10:,} each on its own run (one by one: "
        f"{single:,.0f}/s, the first batch {batched / single:.1f}× as fast); a test-set file "
        f"of {cases:,} cases imported at {imported:,.0f} cases/s; per CPU second: "
        f"{cpu[0]:,.0f} / {cpu[1]:,.0f} / {cpu[2]:,.0f} / {cpu[3]:,.0f}; statements a "
        f"correction: {STATEMENTS[-1][0]:.1f} in a batch, {STATEMENTS[-1][1]:.1f} one by one"
    )
    return [Row("bulk paths: a batch of corrections, a test-set file's import", TARGET,
                measured, min(batched, spread_out, imported) >= 20_000)]  # fmt: skip


if __name__ == "__main__":
    if "--profile" in sys.argv:
        sys.argv.remove("--profile")
        PROFILE.append(cProfile.Profile())
    for row in row_bulk(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000):
        print(f"{row.measured} ({'ok' if row.ok else 'short of'} {row.target})")
    if PROFILE:
        pstats.Stats(PROFILE[0]).sort_stats("tottime").print_stats(25)
