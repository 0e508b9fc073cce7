"""Executing an eval run: replay every case a bounded number at a time in the background,
storing each finished case as it lands, so a stop loses none of them; cancel and interrupt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ...domain.blocks import settings_differ
from ...domain.checks import AnswerCheck
from ...domain.comparison import ReplayCase, Replayed
from ...domain.errors import Conflict, NotFound
from ...domain.expectations import Answer
from ...domain.items import answer_text
from ...domain.outcomes import errored_run, errored_tool
from ...domain.status import TERMINAL
from ...domain.time import now_iso
from ...runtime import judge, memory
from ...runtime.dispatch import tool_env
from ...runtime.eval_loop import EvalLoop
from ...runtime.executor import execute
from ...runtime.replay_dispatch import ReplayDispatcher
from ...runtime.turn_outcome import TurnOutcome
from ...store import eval_runs as store
from ...store import runs as run_store
from .. import catalog, models, runs
from ..context import Context
from .baselines import finished_case
from .read import EvalRun, get, get_record
from .result import finish, summarize
from .settings import settings_of

Replay = Callable[[ReplayCase, str], Awaitable[Replayed]]
"""One replay of a case, given the eval run's `reads`."""

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
    settings = settings_of(record)
    repetitions = settings.repetitions
    sides = [replay] if baseline is None else [replay, baseline]

    async def work(index: int, unit: int) -> Replayed:
        return await sides[unit // repetitions](cases[index], settings.reads)

    def finished(index: int, results: list[Any]) -> None:
        replays = [r if isinstance(r, Replayed) else _errored(r) for r in results]
        stored = finished_case(cases[index], replays[:repetitions], replays[repetitions:], settings)
        store.add_case(ctx.db, run_id, index, cases[index].case_id, stored, now_iso())

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
        if run_id in ctx.eval_tasks:  # a caller's cancel; `interrupt_all` took its tasks out
            finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
        raise
    except Exception as error:  # the executor itself failing ends the run, said plainly
        finish(ctx, run_id, "failed", summarize(ctx, run_id, partial=True), error=str(error))
    else:
        finish(ctx, run_id, "completed", summarize(ctx, run_id))
    ctx.db.release_memory()  # a run that ended by itself; a cancel answers without waiting
    memory.give_back()


def _errored(error: BaseException) -> Replayed:
    return Replayed("", None, [], False, 0, False, error=f"{type(error).__name__}: {error}")


async def replay_case(
    ctx: Context,
    eval_run_id: str,
    agent: dict[str, Any],
    project_id: str,
    case: ReplayCase,
    reads: str,
) -> Replayed:
    """One replay of a case: an ordinary run marked `replayOf` and `evalRunId`."""
    run = runs.open_run(
        ctx,
        agent,
        project_id,
        {"userMessage": case.message},
        started_by=None,
        via="explicit",
        replay_of=case.run_id,
        eval_run_id=eval_run_id,
    )
    recorded = list(case.recorded)
    live = runs.live_dispatcher(
        ctx,
        project_id,
        run["id"],
        env_of=lambda tool: dict(case.tool_env.get(str(tool.get("id")), tool_env(tool))),
        settings=runs.settings_for(ctx, run),
    )
    dispatcher = ReplayDispatcher(
        recorded,
        live,
        reads=reads,  # type: ignore[arg-type]
        strict=case.strict,
        tool_env=case.tool_env,
        settings_differ=_settings_differ(ctx, agent, run.get("block_pins"), case),
    )
    outcome = await runs.perform_turn(ctx, run["id"], agent, case.message, case.history, dispatcher)
    stored = run_store.get(ctx.db, run["id"]) or {}
    judged = await _judge_answers(ctx, case, stored.get("output")) if outcome.ok else {}
    tools = [c.as_journal() for c in outcome.tool_calls]
    errored = errored_run(outcome.failure) or any(errored_tool(t) for t in tools)
    return Replayed(
        run_id=run["id"],
        output=stored.get("output"),
        tools=tools,
        diverged=dispatcher.diverged,
        refused=dispatcher.refused,
        approval_skipped=dispatcher.approval_skipped,
        provider=outcome.provider,
        error=_error_of(outcome.failure, tools) if errored else None,
        judged=judged,
        guardrails=tripped(outcome),
    )


def _error_of(failure: dict[str, Any] | None, tools: list[dict[str, Any]]) -> str:
    """What an errored replay says: its run's failure, else the tool call that errored."""
    if failure:
        return str(failure.get("message") or failure.get("code"))
    return next(str(t["error"]) for t in tools if errored_tool(t))


def tripped(outcome: TurnOutcome) -> tuple[str, ...]:
    """The guardrails a replay tripped: its violations, and `halt` checks that couldn't run."""
    broken = [e for e in outcome.guardrail_errors if e.get("action") == "halt"]
    return tuple(v["guardrailId"] for v in [*outcome.violations, *broken])


def _settings_differ(
    ctx: Context, agent: dict[str, Any], pins: dict[str, str] | None, case: ReplayCase
) -> bool:
    """Whether the candidate pins other settings blocks than the past run did: the block
    versions each run pinned, or, for a past run from before pins were recorded, the ranges
    its version names."""
    try:
        past = catalog.get_agent(ctx, case.agent_id, case.made_on)
    except NotFound:
        return False
    refs, past_refs = agent.get("settings") or [], past.get("settings") or []
    if not refs and not past_refs:
        return False
    return settings_differ(pins, run_store.block_pins(ctx.db, case.run_id), refs, past_refs)


async def _judge_answers(ctx: Context, case: ReplayCase, output: Any) -> dict[int, AnswerCheck]:
    """The judging model's verdict on each answer check of the case (none without a model)."""
    adapter = models.judging_adapter(ctx)
    if adapter is None:
        return {}
    return {
        position: await judge.check_answer(
            adapter, expectation.expected, answer_text(case.output), answer_text(output)
        )
        for position, expectation in enumerate(case.expectations)
        if isinstance(expectation.expected, Answer)
    }


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
        message = INTERRUPTED.format(done=run["done"], total=run["case_count"])
        summary = summarize(ctx, run["run_id"], partial=True)
        finish(ctx, run["run_id"], "failed", summary, error=message)
    return len(left)


async def cancel(ctx: Context, run_id: str) -> EvalRun:
    """Stop a running eval run (its replays in flight are cancelled); 409 once it ended."""
    record = get_record(ctx, run_id)
    if record["status"] in TERMINAL:
        raise Conflict(
            f"Eval run {run_id} has already ended ({record['status']}).",
            code="eval-run-already-terminal",
            runId=run_id,
        )
    job = ctx.eval_tasks.get(run_id)
    if job is not None:
        job.cancel()
        await job.wait()
    for replay in run_store.running(ctx.db, eval_run_id=run_id):
        runs.finish_cancelled(ctx, replay, "The eval run was cancelled.")
    if store.get(ctx.db, run_id)["status"] not in TERMINAL:  # type: ignore[index]
        finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
    return get(ctx, run_id)
