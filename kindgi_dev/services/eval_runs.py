"""Runs on the test cases: replay a candidate on each case, score it beside the recorded runs.

Starting one answers at once; the replays run in the background, a bounded number at a
time, and each finished case is stored as it lands, so a stop loses none of them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

from ..domain import comparison, sampling
from ..domain.checks import AnswerCheck
from ..domain.comparison import ReplayCase, Replayed
from ..domain.errors import BadInput, Conflict, NotFound, ValidationFailed
from ..domain.items import answer_text
from ..domain.metrics import CaseScore
from ..domain.paging import Page, fetch_page
from ..domain.status import TERMINAL
from ..domain.time import now_iso
from ..runtime import judge, memory
from ..runtime.dispatch import tool_env
from ..runtime.executor import execute
from ..runtime.replay_dispatch import ReplayDispatcher
from ..store import eval_runs as store
from ..store import runs as run_store
from . import catalog, models, projects, runs
from .context import Context

Replay = Callable[[ReplayCase, str], Awaitable[Replayed]]
"""One replay of a case, given the eval run's `reads`."""

INTERRUPTED = (
    "Interrupted: the eval run's executor stopped before it finished. {done} of {total} cases "
    "finished."
)


def begin(
    ctx: Context,
    *,
    suite_id: str,
    suite_version: str,
    body: dict[str, Any],
    cases: list[ReplayCase],
    frozen_version: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Store the eval run as `running` and start its replays; `{runId}` at once."""
    ref = body.get("agentRef") or {}
    if body.get("flowRef") is not None or not ref:
        raise BadInput(
            "Give agentRef: kindgi dev tries agent versions on test cases.", field="agentRef"
        )
    project_id = projects.require(ctx, body["projectId"])
    agent = catalog.get_agent(ctx, ref["agentId"], ref.get("version"))
    record = new_record(
        ctx,
        body,
        suite_id=suite_id,
        suite_version=suite_version,
        project_id=project_id,
        cases=cases,
        frozen_version=frozen_version,
    )
    record["agent_ref"] = {"agentId": agent["id"], "version": agent["version"]}

    async def replay(case: ReplayCase, reads: str) -> Replayed:
        return await replay_case(ctx, record["run_id"], agent, project_id, case, reads)

    return launch(ctx, record, body, cases, replay, models.eval_concurrency(ctx, agent))


def new_record(
    ctx: Context,
    body: dict[str, Any],
    *,
    suite_id: str,
    suite_version: str,
    project_id: str,
    cases: list[ReplayCase],
    frozen_version: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A `running` eval run's row with the comparison's settings; the caller adds its subject."""
    if body.get("baseline", "recorded") != "recorded":
        raise BadInput("Only the recorded baseline runs in kindgi dev.", field="baseline")
    _check_overrides(ctx, body)
    comparison_settings = {
        "baseline": "recorded",
        "reads": body.get("reads", "recorded"),
        "repetitions": body.get("repetitions", 1),
        "k": body.get("k", 10),
        "classWeights": body.get("classWeights", "as-recorded"),
    }
    return {
        "run_id": str(uuid.uuid4()),
        "tenant_id": ctx.tenant_id,
        "project_id": project_id,
        "suite_id": suite_id,
        "suite_version": suite_version,
        "kind": "judged",
        "status": "running",
        "dry_run": 1 if body.get("dryRun") else 0,
        "started_at": now_iso(),
        "correlation_id": body.get("correlationId"),
        "comparison": comparison_settings,
        "frozen_version": frozen_version,
        "case_count": len(cases),
    }


def launch(
    ctx: Context,
    record: dict[str, Any],
    body: dict[str, Any],
    cases: list[ReplayCase],
    replay: Replay,
    concurrency: int,
) -> dict[str, Any]:
    """Store the eval run and start replaying its cases in the background (or preview them)."""
    run_id = record["run_id"]
    if body.get("sample"):
        cases = _sampled(cases, body["sample"])
        record = {
            **record,
            "case_count": len(cases),
            "comparison": {**record["comparison"], "sample": body["sample"]},
        }
    store.insert(ctx.db, record)
    if body.get("dryRun"):
        preview = [
            {
                "caseIndex": i,
                "caseId": c.case_id,
                "input": c.message if c.flow_input is None else c.flow_input,
            }
            for i, c in enumerate(cases)
        ]
        _finish(ctx, run_id, "completed", {"dryRun": True, "preview": preview})
        return {"runId": run_id, "dryRunPreview": {"cases": len(cases), "preview": preview}}
    ctx.eval_concurrency[run_id] = concurrency
    task = asyncio.create_task(_run(ctx, run_id, replay, cases))
    ctx.eval_tasks[run_id] = task
    task.add_done_callback(lambda _: _forget(ctx, run_id))
    return {"runId": run_id}


def _sampled(cases: list[ReplayCase], given: dict[str, Any]) -> list[ReplayCase]:
    """The cases of the sample's part, split by its seed and stratified by a "no"."""
    return sampling.sample(
        cases,
        part=given["part"],
        seed=given["seed"],
        hold_out_share=given["holdOutShare"],
        case_id=lambda case: case.case_id,
        has_no=_has_no,
    )


def _has_no(case: ReplayCase) -> bool:
    """Whether a case has a "no": an item marked wrong, or a part it should have done/said."""
    return any(not v.yes for v in case.verdicts) or any(
        e.expected.get("verdict") == "wrong" for e in case.expectations
    )


def _check_overrides(ctx: Context, body: dict[str, Any]) -> None:
    """400 for `overrides` kindgi dev can't apply, saying why (nothing applies here)."""
    overrides = body.get("overrides") or {}
    if not overrides.get("settings") and not overrides.get("prompts"):
        return
    if body.get("flowRef") is not None:
        raise ValidationFailed(
            "overrides", "applies to an agent candidate; a flow's parts are set with versions"
        )
    ref = body.get("agentRef") or {}
    agent = catalog.get_agent(ctx, ref["agentId"], ref.get("version"))
    named = f"{agent['id']}@{agent['version']}"
    pinned = {str(pin.get("id")) for pin in agent.get("settings") or []}
    for block_id in overrides.get("settings") or {}:
        if block_id not in pinned:
            raise ValidationFailed(
                f"overrides/settings/{block_id}", f"is not a settings block {named} pins"
            )
        raise ValidationFailed(
            f"overrides/settings/{block_id}",
            "can't apply under kindgi dev: it doesn't serve settings blocks' content to "
            "tools, so a replay would run the same either way; try it on a runtime you "
            "deploy to",
        )
    for block_id in overrides.get("prompts") or {}:
        raise ValidationFailed(
            f"overrides/prompts/{block_id}",
            f"can't apply: {named} pins no prompt block, since kindgi dev runs instructions "
            "given as text only",
        )


def _forget(ctx: Context, run_id: str) -> None:
    ctx.eval_tasks.pop(run_id, None)
    ctx.eval_concurrency.pop(run_id, None)


async def _run(ctx: Context, run_id: str, replay: Replay, cases: list[ReplayCase]) -> None:
    """Replay every case × repetition, store each case as it ends, then the result."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record["comparison"]
    restricted_only = settings["classWeights"] == "restricted-only"

    async def work(index: int, repetition: int) -> Replayed:
        return await replay(cases[index], settings["reads"])

    def finished(index: int, results: list[Any]) -> None:
        replays = [r if isinstance(r, Replayed) else _errored(r) for r in results]
        entry, base, cand, passes = comparison.case_result(
            index, cases[index], replays, k=settings["k"], restricted_only=restricted_only
        )
        stored = {
            "entry": entry,
            "baseline": asdict(base),
            "candidate": [asdict(c) for c in cand],
            "checks": passes,
            "baselineChecks": comparison.baseline_passes(cases[index]),
            "madeOn": cases[index].made_on,
            "models": [r.provider for r in replays if r.provider],
        }
        store.add_case(ctx.db, run_id, index, cases[index].case_id, stored, now_iso())

    try:
        await execute(
            len(cases),
            settings["repetitions"],
            work,
            finished,
            concurrency=ctx.eval_concurrency.get(run_id, 1),
        )
    except asyncio.CancelledError:
        if run_id in ctx.eval_tasks:  # a caller's cancel; `interrupt_all` took its tasks out
            _finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
        raise
    except Exception as error:  # the executor itself failing ends the run, said plainly
        _finish(ctx, run_id, "failed", summarize(ctx, run_id, partial=True), error=str(error))
    else:
        _finish(ctx, run_id, "completed", summarize(ctx, run_id))
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
    )
    dispatcher = ReplayDispatcher(
        recorded,
        live,
        reads=reads,  # type: ignore[arg-type]
        strict=case.strict,
        tool_env=case.tool_env,
        settings_differ=_settings_differ(ctx, agent, case),
    )
    outcome = await runs.perform_turn(ctx, run["id"], agent, case.message, case.history, dispatcher)
    stored = run_store.get(ctx.db, run["id"]) or {}
    judged = await _judge_answers(ctx, case, stored.get("output")) if outcome.ok else {}
    return Replayed(
        run_id=run["id"],
        output=stored.get("output"),
        tools=[c.as_journal() for c in outcome.tool_calls],
        diverged=dispatcher.diverged,
        refused=dispatcher.refused,
        approval_skipped=dispatcher.approval_skipped,
        provider=outcome.provider,
        error=None if outcome.ok else (outcome.failure or {}).get("message"),
        judged=judged,
    )


def _settings_differ(ctx: Context, agent: dict[str, Any], case: ReplayCase) -> bool:
    """Whether the candidate pins other settings blocks than the version the past run ran."""
    try:
        past = catalog.get_agent(ctx, case.agent_id, case.made_on)
    except NotFound:
        return False
    return (agent.get("settings") or []) != (past.get("settings") or [])


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
        if expectation.part == "answer"
    }


def summarize(ctx: Context, run_id: str, *, partial: bool = False) -> dict[str, Any]:
    """The `JudgedComparisonResult` of the cases stored so far."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record["comparison"]
    done = store.cases(ctx.db, run_id)
    entries = [d["result"] for d in done]
    rated = [e for e in entries if "stopped" not in e["entry"]]
    ok = [e for e in rated if "error" not in e["entry"] or e["candidate"]]
    baseline = [CaseScore(**e["baseline"]) for e in rated]
    candidate = [[CaseScore(**c) for c in e["candidate"]] for e in ok]
    checks = [e["checks"] for e in entries]
    test_set = record.get("frozen_version") is not None
    metrics = comparison.metrics(
        baseline,
        candidate,
        k=settings["k"],
        test_set=test_set,
        baseline_checks=[e["baselineChecks"] for e in entries],
        candidate_checks=checks,
    )
    versions: dict[str, int] = {}
    models: dict[tuple[str, str], int] = {}
    for e in entries:
        versions[e["madeOn"]] = versions.get(e["madeOn"], 0) + 1
        for m in e["models"]:
            key = (m.get("id", ""), m.get("model", ""))
            models[key] = models.get(key, 0) + 1
    subject, subject_id, candidate_of = _candidate(record)
    errors = sum(1 for e in entries if "error" in e["entry"])
    summary = {
        "evalRunId": run_id,
        "status": "partial" if partial or errors else "completed",
        "completedAt": now_iso(),
        "suite": {"id": record["suite_id"], "version": record["suite_version"]},
        "candidate": candidate_of,
        "baseline": {
            "kind": "recorded",
            "versions": [
                {subject: subject_id, "version": v, "cases": n} for v, n in sorted(versions.items())
            ],
        },
        "scope": {"projectId": record["project_id"]},
        "cases": len(entries),
        "diverged": sum(1 for e in entries if e["entry"]["diverged"]),
        "refusedWrites": sum(e["entry"]["refusedWrites"] for e in entries),
        "errors": errors,
        "stopped": sum(1 for e in entries if "stopped" in e["entry"]),
        "reads": settings["reads"],
        "classWeights": settings["classWeights"],
        **({"sample": settings["sample"]} if settings.get("sample") else {}),
        "sampling": {
            "models": [
                {"providerId": p, "model": m, "runs": n} for (p, m), n in sorted(models.items())
            ]
        },
        "repetitions": settings["repetitions"],
        "metrics": metrics,
        "corrections": {
            "checked": sum(len(c) for c in checks),
            "passed": sum(sum(c) for c in checks),
        },
    }
    if any(c.get("part") == "answer" for e in entries for c in e["entry"].get("corrections", [])):
        summary["judge"] = _judge_summary(ctx)
    return {"summary": summary, "perCase": [e["entry"] for e in entries]}


def _candidate(record: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The key naming the subject (`agentId` or `flowId`), its id, and the summary's candidate."""
    if record.get("flow_ref"):
        ref = record["flow_ref"]
        candidate = {"kind": "flow", "flowId": ref["flowId"], "version": ref["version"]}
        versions = record["comparison"].get("versions")
        if versions:
            candidate["versions"] = versions
        return "flowId", ref["flowId"], candidate
    ref = record["agent_ref"]
    return "agentId", ref["agentId"], {"kind": "agent", **ref}


def _judge_summary(ctx: Context) -> dict[str, Any]:
    """Which judge checked the answers: the configured model, or the deterministic one."""
    adapter = models.judging_adapter(ctx)
    if adapter is not None:
        return {"kind": "model", "providerId": adapter.provider_id, "model": adapter.model}
    return {
        "kind": "deterministic",
        "note": "No judging model is configured, so answer checks "
        "compared text: the same answer for `right`, one containing shouldSay for `wrong`.",
    }


def _finish(
    ctx: Context, run_id: str, status: str, result: dict[str, Any], error: str | None = None
) -> None:
    changes: dict[str, Any] = {"status": status, "completed_at": now_iso(), "result": result}
    if error:
        changes["error"] = error
    store.update(ctx.db, run_id, changes)


async def interrupt_all(ctx: Context) -> int:
    """At stop, before the store closes: end every eval run's executor, each run `failed`.

    The runs read as after a crash (`INTERRUPTED`, saying how far they got), but nothing
    touches the store once this returns.
    """
    tasks = [ctx.eval_tasks.pop(run_id) for run_id in list(ctx.eval_tasks)]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return fail_interrupted(ctx) if tasks else 0


def fail_interrupted(ctx: Context) -> int:
    """At start: eval runs a stopped process left running end `failed`, saying how far."""
    left = store.unfinished(ctx.db)
    for run in left:
        message = INTERRUPTED.format(done=run["done"], total=run["case_count"])
        summary = summarize(ctx, run["run_id"], partial=True)
        _finish(ctx, run["run_id"], "failed", summary, error=message)
    return len(left)


def get_record(ctx: Context, run_id: str) -> dict[str, Any]:
    """An eval run as stored; 404 `eval-run-not-found`."""
    record = store.get(ctx.db, run_id)
    if record is None or record["tenant_id"] != ctx.tenant_id:
        raise NotFound("eval-run", run_id, id_field="run_id")
    return record


@dataclass(frozen=True)
class Progress:
    """How far a running eval run got: cases done of all, and its concurrency when known."""

    cases_done: int
    cases: int
    concurrency: int | None = None


@dataclass(frozen=True)
class EvalRun:
    """An eval run (`frozen_version` for a test-set run, `progress` while it runs)."""

    run_id: str
    tenant_id: str
    project_id: str
    suite_id: str
    suite_version: str
    kind: str
    status: str
    dry_run: bool
    started_at: str
    agent_ref: dict[str, Any] | None = None
    flow_ref: dict[str, Any] | None = None
    completed_at: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    cancel_reason: str | None = None
    correlation_id: str | None = None
    comparison: dict[str, Any] | None = None
    frozen_version: dict[str, Any] | None = None
    progress: Progress | None = None


def get(ctx: Context, run_id: str) -> EvalRun:
    """An eval run; a running one says how many cases it finished."""
    record = get_record(ctx, run_id)
    if record["status"] not in ("pending", "running"):
        return record_of(record)
    progress = Progress(
        record["cases_done"], record["case_count"], ctx.eval_concurrency.get(run_id)
    )
    return record_of(record, progress)


def list_page(
    ctx: Context, *, limit: int | None, cursor: str | None, filters: dict[str, Any]
) -> Page[EvalRun]:
    """A page of eval runs, newest first."""
    page = fetch_page(
        lambda size, after: store.list_page(
            ctx.db, ctx.tenant_id, limit=size, after=after, filters=filters
        ),
        limit=limit,
        cursor=cursor,
        position=lambda r: (r["started_at"], r["run_id"]),
    )
    return page.map(record_of)


async def cancel(ctx: Context, run_id: str) -> EvalRun:
    """Stop a running eval run (its replays in flight are cancelled); 409 once it ended."""
    record = get_record(ctx, run_id)
    if record["status"] in TERMINAL:
        raise Conflict(
            f"Eval run {run_id} has already ended ({record['status']}).",
            code="eval-run-already-terminal",
            runId=run_id,
        )
    task = ctx.eval_tasks.get(run_id)
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    for replay in run_store.running(ctx.db, eval_run_id=run_id):
        runs.finish_cancelled(ctx, replay, "The eval run was cancelled.")
    if store.get(ctx.db, run_id)["status"] not in TERMINAL:  # type: ignore[index]
        _finish(ctx, run_id, "cancelled", summarize(ctx, run_id, partial=True))
    return get(ctx, run_id)


def record_of(row: dict[str, Any], progress: Progress | None = None) -> EvalRun:
    """A stored eval run as its record."""
    return EvalRun(
        run_id=row["run_id"],
        tenant_id=row["tenant_id"],
        project_id=row["project_id"],
        suite_id=row["suite_id"],
        suite_version=row["suite_version"],
        kind=row["kind"],
        status=row["status"],
        dry_run=bool(row["dry_run"]),
        started_at=row["started_at"],
        agent_ref=row.get("agent_ref") or None,
        flow_ref=row.get("flow_ref") or None,
        completed_at=row.get("completed_at"),
        result=row.get("result"),
        error=row.get("error"),
        cancel_reason=row.get("cancel_reason"),
        correlation_id=row.get("correlation_id"),
        comparison=row.get("comparison"),
        frozen_version=row.get("frozen_version"),
        progress=progress,
    )


def finished_cases(ctx: Context, run_id: str, *, after: int = -1) -> list[dict[str, Any]]:
    """The cases an eval run finished after index `after`, in order."""
    return store.cases(ctx.db, run_id, after=after)
