"""Scale rows: the same reads and eval runs at growing sizes, each beside its ratio to the
smallest, so a cost that grows faster than the work shows.

The data is seeded in two steps. A few runs and corrections go through the API of a real
`kindgi dev`; that instance is stopped, and the rest are copies of those, written with the
store's own functions (`kindgi_dev.store.runs`, `.conversations`, `.corrections`) into the
same database, with new ids and times. Then `kindgi dev` starts again on it and everything
measured goes through the API.
"""

from __future__ import annotations

import itertools
import statistics
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import seed
from devserver import DevServer
from lab import Lab, ms, say
from rows import Row, cpu_seconds, percentile, rss_mb

from kindgi_dev.domain.corrections import StoredCorrection, StoredVerdict
from kindgi_dev.domain.time import format_time
from kindgi_dev.settings import Settings
from kindgi_dev.store import conversations as conversation_store
from kindgi_dev.store import corrections as correction_store
from kindgi_dev.store import runs as run_store
from kindgi_dev.store import tool_calls as tool_call_store
from kindgi_dev.store.db import Database
from kindgi_dev.store.runs import JournalEntry, StoredRun

BATCH = 2_000
"""Copies written per transaction."""


@dataclass(frozen=True)
class Measured:
    """One figure at each size."""

    sizes: Sequence[int]
    values: Sequence[float | None]

    def cell(self, unit: str, digits: int = 1) -> str:
        """`1,000: 2.1 ms (1.0×); 10,000: 2.3 ms (1.1×)` — each beside its ratio to the first."""
        first = self.values[0]
        parts = []
        for size, value in zip(self.sizes, self.values, strict=True):
            if value is None:
                parts.append(f"{size:,}: —")
                continue
            ratio = f" ({value / first:.2f}×)" if first else ""
            parts.append(f"{size:,}: {value:,.{digits}f} {unit}{ratio}")
        return "; ".join(parts)

    @property
    def last(self) -> float | None:
        """The figure at the largest size."""
        return self.values[-1]

    def ratio(self) -> float | None:
        """The largest size's figure over the smallest's."""
        first, last = self.values[0], self.values[-1]
        return None if first is None or last is None or not first else last / first


def counted(sizes: Sequence[int]) -> str:
    """`1,000 / 10,000 / 100,000`."""
    return " / ".join(f"{size:,}" for size in sizes)


@contextmanager
def store_of(pack: Path) -> Iterator[Database]:
    """The pack's database, opened as `kindgi dev` opens it (while no `kindgi dev` runs)."""
    db = Database(Settings(pack_dir=pack).database_path)
    db.migrate()
    try:
        yield db
    finally:
        db.close()


def table_bytes(pack: Path) -> int:
    """The bytes the database's tables and indexes take (their pages, read with `dbstat`
    while no `kindgi dev` runs), but a test set's frozen copies of its cases: an eval run
    makes them once per version of the set at its start, not per replay (row 11)."""
    with store_of(pack) as db:
        row = db.one(
            "SELECT coalesce(sum(pgsize), 0) AS size FROM dbstat "
            "WHERE name NOT LIKE '%test_set_version_cases%'"
        )
    return int(row["size"])


class Stamps:
    """Distinct, increasing wire times, a millisecond apart, from a moment in the past."""

    def __init__(self, start: datetime) -> None:
        self._ticks = itertools.count()
        self._start = start

    def next(self) -> str:
        """The next time."""
        return format_time(self._start + timedelta(milliseconds=next(self._ticks)))


@dataclass(frozen=True)
class RunTemplate:
    """A run as stored, with what a copy of it needs: its tool calls, journal and messages."""

    run: StoredRun
    tool_calls: list[dict[str, Any]]
    journal: list[JournalEntry]
    messages: list[Any]


def copy_run(db: Database, template: RunTemplate, at: str) -> str:
    """A copy of a finished run, its tool calls, journal and conversation; the copy's id."""
    run_id, conversation_id = str(uuid.uuid4()), str(uuid.uuid4())
    conversation = conversation_store.get(db, str(template.run.conversation_id))
    assert conversation is not None
    conversation_store.insert(db, replace(conversation, id=conversation_id, opened_at=at,
                                          turn_count=0, last_message_at=None))  # fmt: skip
    kept = template.run.output
    output = dict(kept) if isinstance(kept, dict) else {}
    output.update({k: v for k, v in (("runId", run_id), ("conversationId", conversation_id))
                   if k in output})  # fmt: skip
    run_store.insert(db, replace(template.run, id=run_id, conversation_id=conversation_id,
                                 created_at=at, updated_at=at, completed_at=at,
                                 output=output))  # fmt: skip
    tool_call_store.add_tool_calls(db, run_id, template.tool_calls)
    run_store.add_journal(db, run_id, template.journal)
    conversation_store.append(db, conversation_id, run_id, template.messages, at)
    return run_id


CorrectionTemplate = tuple[StoredCorrection, list[StoredVerdict]]
"""A correction as stored, with its verdicts: what `copy_correction` copies."""


def copy_correction(
    db: Database, template: CorrectionTemplate, run_id: str, participant: str, at: str
) -> None:
    """A copy of a correction (and its verdicts) by another participant, on `run_id`."""
    correction, verdicts = template
    correction_id = str(uuid.uuid4())
    corrector = correction.corrector._replace(participant_id=participant)
    correction_store.insert_correction(db, replace(correction, id=correction_id, run_id=run_id,
                                                   corrector=corrector, created_at=at,
                                                   updated_at=at))  # fmt: skip
    correction_store.insert_verdicts(db, [
        replace(v, id=str(uuid.uuid4()), correction_id=correction_id, run_id=run_id,
                asserted_by=corrector, created_at=at)
        for v in verdicts
    ])  # fmt: skip


def run_template(db: Database, run_id: str) -> RunTemplate:
    """A run as stored, with what a copy of it needs."""
    run = run_store.get(db, run_id)
    assert run is not None
    journal = [replace(e, sequence=None)
               for e in run_store.journal(db, run_id, since=-1, limit=None)]  # fmt: skip
    messages = conversation_store.messages(db, str(run.conversation_id))
    return RunTemplate(run, tool_call_store.tool_calls(db, run_id), journal, messages)


def correction_template(db: Database, correction_id: str) -> CorrectionTemplate:
    """A correction as stored, with its verdicts."""
    correction = correction_store.get_correction(db, correction_id)
    assert correction is not None
    return correction, correction_store.verdicts_of(db, [correction_id])[correction_id]


def in_batches(db: Database, first: int, end: int, write: Callable[[int], Any]) -> None:
    """`write(n)` for each n in range(first, end), `BATCH` of them to a transaction."""
    for start in range(first, end, BATCH):
        with db.transaction():
            for n in range(start, min(end, start + BATCH)):
                write(n)


def recorded_through_api(lab: Lab, name: str, runs: int) -> tuple[Path, str, list[str], list[str]]:
    """A pack with `runs` runs of the tutorial's questions, each corrected once, through the
    API; (pack, project, run ids, correction ids). The server is stopped afterwards."""
    pack = lab.pack(name)
    server = lab.start(pack)
    recorded = seed.start_runs(server, runs)
    with server.client() as client:
        project = seed.project_id(client)
        corrections = []
        for run in recorded:
            response = client.post("/v1/corrections", json=seed.correction(run, "seed"))
            response.raise_for_status()
            corrections.append(response.json()["id"])
    lab.stop(server)
    return pack, project, [run["id"] for run in recorded], corrections


def row_test_set_scale(lab: Lab) -> list[Row]:
    """Test-set reads at each number of corrections, and what the database grew a
    correction over its size before the store's copies (the schema, the 20 runs and their
    corrections), so the empty schema's pages do not count at small sizes."""
    sizes = lab.sizes.scale_corrections
    pack, project, run_ids, correction_ids = recorded_through_api(lab, "scale-set", 20)
    before = table_bytes(pack)
    stamps = Stamps(datetime.now(UTC) - timedelta(days=30))
    reads: list[float | None] = []
    per_10k: list[float | None] = []
    have = len(correction_ids)
    for size in sizes:
        say(f"  {size - have:,} more corrections through the store, {size:,} in all…")
        began = time.perf_counter()
        with store_of(pack) as db:
            templates = [correction_template(db, c) for c in correction_ids]

            def write(n: int, db: Database = db, templates: list[Any] = templates) -> None:
                copy_correction(db, templates[n % len(templates)], run_ids[n % len(run_ids)],
                                f"p-{n}", stamps.next())  # fmt: skip

            in_batches(db, have, size, write)
        have = size
        say(f"    written in {time.perf_counter() - began:.1f} s")
        grown = table_bytes(pack) - before
        per_10k.append(grown / (size - len(correction_ids)) * 10_000 / 1e6)
        server = lab.start(pack)
        with server.client() as client:
            timed = [seed.read_test_set(client, project) for _ in range(lab.sizes.reads)]
        lab.stop(server)
        if timed[-1][2] != size:
            raise RuntimeError(f"the test set read {timed[-1][2]:,} cases, not {size:,}")
        reads.append(percentile([ms(a + b) for a, b, _ in timed], 50))
        say(f"    read p50 {reads[-1]:.1f} ms; {per_10k[-1]:.1f} MB per 10,000")
    read = Measured(sizes, reads)
    size_row = Measured(sizes, per_10k)
    ratio = read.ratio()
    read_ok = read.last is not None and read.last < 10 and ratio is not None and ratio <= 1.5
    return [
        Row(f"read an agent's test set (set + first cases page) at {counted(sizes)} corrections",
            "p50 < 10 ms at 100,000, within 1.5× of 1,000", "p50 " + read.cell("ms"), read_ok),
        Row(f"database growth at {counted(sizes)} corrections", "< 15 MB per 10,000",
            size_row.cell("MB per 10,000"),
            size_row.last is not None and size_row.last < 15),
    ]  # fmt: skip


LARGE_CASES = 50_000
"""The size `run.py --large` adds to row 11 (its run takes minutes)."""


@dataclass
class EvalAtSize:
    """One eval run's figures."""

    cases: int
    per_case_ms: float
    polls_ms: list[float]
    idle_mb: float
    after_mb: float
    peak_mb: float
    """The server's peak RSS (`VmHWM`: started afresh for the run, so its start and run)."""
    cpu_ms: float = 0.0
    """The server's CPU a case from the start's answer to the end (its polls too): on a
    busy machine it moves far less than the time does."""
    grown_bytes: float = 0.0
    """The database's growth on disk a replayed case, WAL checkpointed at the stop."""


def peak_mb(pid: int) -> float:
    """A process's peak resident memory so far, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for pid {pid}")


POLL_S = 0.02
"""How often row 11 polls a running run, from its start: each second (the CLI's pace) gave
no poll of 100 cases and one of 1,000, too few for a p50; a poll's 0.7 ms of the server's
CPU each 20 ms is about 3% of the run's."""


def timed_cli_like(
    server: DevServer, project: str, cases: int, idle_s: float, poll_s: float = seed.CLI_POLL_S
) -> EvalAtSize:
    """Idle, then start an eval run of 0.1.0 on the agent's test set and poll it each
    `poll_s` (each second, as the CLI does, unless given); its cost per case from the run's
    own start and end times.

    Before idling, one read of an eval run that isn't there: a warm start imports a
    resource module at its first request (`api.route_table`), so without it the idle
    figure would lack the eval runs' code, and the memory after the run count it."""
    body = {"projectId": project, "agentRef": {"agentId": seed.AGENT, "version": "0.1.0"}}
    polls: list[float] = []
    with server.client() as client:
        if client.get(f"/v1/eval-runs/{uuid.UUID(int=0)}").status_code != 404:
            raise RuntimeError("reading an eval run that isn't there did not answer 404")
        time.sleep(idle_s)
        idle = rss_mb(server.pid)
        response = client.post(f"/v1/agents/{seed.AGENT}/test-set/runs", json=body)
        if response.status_code != 201:
            raise RuntimeError(f"starting an eval run: {response.status_code} {response.text}")
        run_id = response.json()["runId"]
        cpu = cpu_seconds(server.pid)
        deadline = time.perf_counter() + 1800
        while True:
            time.sleep(poll_s)
            began = time.perf_counter()
            run = seed.poll(client, run_id)
            if run["status"] in seed.TERMINAL:
                break
            polls.append(ms(time.perf_counter() - began))
            if time.perf_counter() > deadline:
                raise RuntimeError(f"eval run {run_id} did not finish in 30 minutes")
        cpu = cpu_seconds(server.pid) - cpu
    if run["status"] != "completed" or run["result"]["summary"]["cases"] != cases:
        raise RuntimeError(f"eval run {run_id}: {run['status']}, {run.get('error')}")
    time.sleep(1.0)
    per_case = ms(seed.run_seconds(run)) / cases
    peak = peak_mb(server.pid)
    return EvalAtSize(cases, per_case, polls, idle, rss_mb(server.pid), peak, ms(cpu) / cases)


def row_eval_scale(lab: Lab) -> list[Row]:
    """Eval runs of growing suites with many other runs stored: cost per case, polls, memory
    and the database's growth a replayed case."""
    sizes = lab.sizes.scale_cases
    pack, project, run_ids, correction_ids = recorded_through_api(lab, "scale-eval", 3)
    stamps = Stamps(datetime.now(UTC) - timedelta(days=30))
    with store_of(pack) as db:
        runs = [run_template(db, r) for r in run_ids]
        corrections = [correction_template(db, c) for c in correction_ids]
        others = lab.sizes.scale_other_runs
        say(f"  {others:,} other runs through the store…")
        began = time.perf_counter()
        in_batches(db, 0, others, lambda n: copy_run(db, runs[n % 3], stamps.next()))
        say(f"    written in {time.perf_counter() - began:.1f} s")
    results: list[EvalAtSize] = []
    have = len(run_ids)
    for size in sizes:
        with store_of(pack) as db:

            def write(n: int, db: Database = db) -> None:
                at = stamps.next()
                run_id = copy_run(db, runs[n % 3], at)
                copy_correction(db, corrections[n % 3], run_id, "seed", at)

            in_batches(db, have, size, write)
        have = size
        results.append(_eval_at(lab, pack, project, size, others))
    return _eval_rows(sizes, others, results)


def _eval_at(lab: Lab, pack: Path, project: str, size: int, others: int) -> EvalAtSize:
    """One eval run of `size` cases on a fresh start, with what the database grew."""
    before = table_bytes(pack)
    server = lab.start(pack)
    say(f"  eval run on {size:,} cases ({others:,} other runs stored), polled each "
        f"{ms(POLL_S):.0f} ms…")  # fmt: skip
    result = timed_cli_like(server, project, size, lab.sizes.idle_s, POLL_S)
    lab.stop(server)
    result.grown_bytes = (table_bytes(pack) - before) / size
    say(f"    {result.per_case_ms:.2f} ms/case (server CPU {result.cpu_ms:.2f} ms); "
        f"{len(result.polls_ms)} polls; "
        f"RSS {result.idle_mb:.0f} → {result.after_mb:.0f} MB, peak {result.peak_mb:.0f} MB; "
        f"database +{result.grown_bytes:,.0f} bytes a replayed case")  # fmt: skip
    return result


def _eval_rows(sizes: Sequence[int], others: int, results: list[EvalAtSize]) -> list[Row]:
    """Row 11's lines, with DESIGN.md's targets."""
    cost = Measured(sizes, [r.per_case_ms for r in results])
    cpu = Measured(sizes, [r.cpu_ms for r in results])
    polls = Measured(sizes, [statistics.median(r.polls_ms) if r.polls_ms else None
                             for r in results])  # fmt: skip
    grown = Measured(sizes, [r.after_mb - r.idle_mb for r in results])
    peak = Measured(sizes, [r.peak_mb for r in results])
    disk = Measured(sizes, [r.grown_bytes / 1000 for r in results])
    ratio = cost.ratio()
    slowest_poll = max((v for v in polls.values if v is not None), default=None)
    return [
        Row(f"eval run cost per case at {counted(sizes)} cases, {others:,} other runs stored",
            f"< 1 ms, {sizes[-1]:,} within 1.3× of {sizes[0]:,}",
            cost.cell("ms/case", 2) + "; the server's CPU: " + cpu.cell("ms/case", 2),
            ratio is not None and ratio <= 1.3 and cost.last is not None and cost.last < 1),
        Row(f"poll a running eval run of {counted(sizes)} cases", "p50 < 5 ms at any size",
            "p50 " + polls.cell("ms") + f" (polled each {ms(POLL_S):.0f} ms from the start: "
            + " / ".join(f"{len(r.polls_ms):,}" for r in results) + " polls)",
            None if slowest_poll is None else slowest_poll < 5),
        Row(f"peak RSS during an eval run of {counted(sizes)} cases (start included)",
            f"< 150 MB at {LARGE_CASES:,}", peak.cell("MB", 0),
            None if LARGE_CASES not in sizes else peak.last is not None and peak.last < 150),
        Row(f"memory after an eval run of {counted(sizes)} cases", "within 10 MB of idle",
            "RSS after the run − idle: " + grown.cell("MB") +
            f"; idle {results[-1].idle_mb:.0f} MB",
            all(r.after_mb - r.idle_mb <= 10 for r in results)),
        Row(f"database growth a replayed case at {counted(sizes)} cases", "< 3 kB",
            disk.cell("kB", 2), all(r.grown_bytes < 3000 for r in results)),
    ]  # fmt: skip
