"""Executing an eval run: replay every case a bounded number at a time in the background,
storing each finished case as it lands, so a stop loses none of them; cancel and interrupt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from ...domain.comparison import ReplayCase, Replayed
from ...domain.errors import Conflict
from ...domain.status import TERMINAL
from ...domain.time import now_iso
from ...runtime import memory
from ...runtime.eval_loop import Breather, EvalLoop
from ...runtime.executor import execute
from ...store import eval_runs as store
from ...store import runs as run_store
from .. import runs
from ..context import Context
from . import page as pages
from .baselines import finished_case
from .page import PendingPage
from .read import EvalRun, get, get_record
from .result import finish, summarize

Replay = Callable[[ReplayCase, str, int], Awaitable[Replayed]]
"""One replay of a case, given the eval run's `reads` and the repetition's index."""

INTERRUPTED = (
    "Interrupted: the eval run's executor stopped before it finished. {done} of {total} cases "
    "finished."
)


def spawn(
    ctx: Context,
    run_id: str,
    replay: Replay,
    cases: Sequence[ReplayCase],
    concurrency: int,
    baseline: Replay | None = None,
    skip: frozenset[int] = frozenset(),
) -> None:
    """Start replaying the stored run's cases on the eval loop, `concurrency` at a time (but
    those at the `skip` indices, already stored: a resumed run's), with a version
    baseline's replays of each case too, as the same executor's work; once the write that
    stored the run commits (the loop's thread reads only what is committed)."""
    if ctx.eval_loop is None:
        ctx.eval_loop = EvalLoop(ctx.home or asyncio.get_running_loop())
    loop = ctx.eval_loop

    def begin() -> None:
        ctx.eval_concurrency[run_id] = concurrency
        job = loop.start(_run(ctx, run_id, replay, cases, baseline, skip))
        ctx.eval_tasks[run_id] = job
        job.add_done_callback(lambda: _forget(ctx, run_id))

    ctx.db.after_commit(begin)


def _forget(ctx: Context, run_id: str) -> None:
    ctx.eval_tasks.pop(run_id, None)
    ctx.eval_concurrency.pop(run_id, None)


async def _run(
    ctx: Context,
    run_id: str,
    replay: Replay,
    cases: Sequence[ReplayCase],
    baseline: Replay | None,
    skip: frozenset[int],
) -> None:
    """Replay every case × repetition (× side, with a version baseline), store each case as
    it ends, then the result."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record.settings
    repetitions = settings.repetitions
    sides = [replay] if baseline is None else [replay, baseline]

    breather = Breather()

    async def work(index: int, unit: int) -> Replayed:
        side, repetition = divmod(unit, repetitions)
        try:
            return await sides[side](cases[index], settings.reads, repetition)
        finally:
            await breather.after_replay()

    page = PendingPage(ctx, run_id)
    pages.current.set(page)  # the workers' tasks copy it: their replays write into it

    def finished(index: int, results: Sequence[Replayed | BaseException]) -> None:
        replays = [r if isinstance(r, Replayed) else _errored(r) for r in results]
        stored = finished_case(cases[index], replays[:repetitions], replays[repetitions:], settings)
        page.add_case(index, cases[index].case_id, stored, now_iso())

    try:
        await execute(
            len(cases),
            repetitions * len(sides),
            work,
            finished,
            concurrency=ctx.eval_concurrency.get(run_id, 1),
            skip=skip,
        )
    except asyncio.CancelledError:
        page.store()  # what finished before the cancel or the stop is kept
        if run_id in ctx.eval_tasks:  # a caller's cancel; `interrupt_all` took its tasks out
            finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
        raise
    except Exception as error:  # the executor itself failing ends the run, said plainly
        page.store()
        finish(ctx, run_id, "failed", summarize(ctx, run_id, partial=True), error=str(error))
    else:
        page.store()
        finish(ctx, run_id, "completed", summarize(ctx, run_id))
    ctx.db.release_memory()  # a run that ended by itself; a cancel answers without waiting
    memory.give_back()


def _errored(error: BaseException) -> Replayed:
    return Replayed("", None, [], False, 0, False, error=f"{type(error).__name__}: {error}")


async def interrupt_all(ctx: Context) -> int:
    """At stop, before the store closes: end every eval run's executor, each run `failed`.

    The runs read as after a crash (`INTERRUPTED`, saying how far they got), but nothing
    touches the store once this returns.
    """
    jobs = [ctx.eval_tasks.pop(run_id) for run_id in list(ctx.eval_tasks)]
    for job in jobs:
        job.cancel()
    for job in jobs:
        await job.wait()
    if ctx.eval_loop is not None:
        ctx.eval_loop.close()
        ctx.eval_loop = None
    return fail_interrupted(ctx) if jobs else 0


def fail_interrupted(ctx: Context) -> int:
    """At start: eval runs a stopped process left running end `failed`, saying how far."""
    left = store.unfinished(ctx.db)
    for run in left:
        message = INTERRUPTED.format(done=run.done, total=run.case_count)
        summary = summarize(ctx, run.run_id, partial=True)
        finish(ctx, run.run_id, "failed", summary, error=message)
    return len(left)


async def cancel(ctx: Context, run_id: str) -> EvalRun:
    """Stop a running eval run (its replays in flight are cancelled); 409 once it ended."""
    record = get_record(ctx, run_id)
    if record.status in TERMINAL:
        raise Conflict(
            f"Eval run {run_id} has already ended ({record.status}).",
            code="eval-run-already-terminal",
            runId=run_id,
        )
    job = ctx.eval_tasks.get(run_id)
    if job is not None:
        job.cancel()
        await job.wait()
    for replay in run_store.running(ctx.db, eval_run_id=run_id):
        runs.finish_cancelled(ctx, replay, "The eval run was cancelled.")
    if get_record(ctx, run_id).status not in TERMINAL:
        finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
    return get(ctx, run_id)
