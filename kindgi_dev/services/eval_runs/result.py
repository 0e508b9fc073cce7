"""An eval run's result: the comparison of the cases stored so far, and ending a run with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...domain import comparison
from ...domain.results import (
    Baseline,
    BaselineVersion,
    Candidate,
    CaseResult,
    CheckCount,
    ComparisonResult,
    EvalResult,
    Judge,
    ModelUse,
    Sampling,
    Scope,
    SuiteRef,
    Summary,
)
from ...domain.time import now_iso
from ...store import eval_runs as store
from .. import models
from ..context import Context


def summarize(ctx: Context, run_id: str, *, partial: bool = False) -> ComparisonResult:
    """The comparison of the cases stored so far."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record["comparison"]
    entries = [done for _, done in store.cases(ctx.db, run_id)]
    rated = [e for e in entries if e.result.stopped is None]
    ok = [e for e in rated if e.result.error is None or e.result.candidate]
    checks = [e.checks for e in entries]
    metrics = comparison.metrics(
        [e.result.baseline for e in rated],
        [e.result.candidate for e in ok],
        k=settings["k"],
        test_set=record.get("frozen_version") is not None,
        baseline_checks=[e.baseline_checks for e in entries],
        candidate_checks=checks,
    )
    versions: dict[str, int] = {}
    models: dict[tuple[str, str], int] = {}
    for e in entries:
        versions[e.made_on] = versions.get(e.made_on, 0) + 1
        for m in e.models:
            key = (m.get("id", ""), m.get("model", ""))
            models[key] = models.get(key, 0) + 1
    candidate, baseline_of = _candidate(record)
    errors = sum(1 for e in entries if e.result.error is not None)
    summary = Summary(
        eval_run_id=run_id,
        status="partial" if partial or errors else "completed",
        completed_at=now_iso(),
        suite=SuiteRef(record["suite_id"], record["suite_version"]),
        candidate=candidate,
        baseline=Baseline(
            "recorded", [baseline_of(version, n) for version, n in sorted(versions.items())]
        ),
        scope=Scope(record["project_id"]),
        cases=len(entries),
        diverged=sum(1 for e in entries if e.result.diverged),
        refused_writes=sum(e.result.refused_writes for e in entries),
        errors=errors,
        stopped=sum(1 for e in entries if e.result.stopped is not None),
        reads=settings["reads"],
        class_weights=settings["classWeights"],
        sample=settings.get("sample") or None,
        sampling=Sampling([ModelUse(p, m, n) for (p, m), n in sorted(models.items())]),
        repetitions=settings["repetitions"],
        metrics=metrics,
        corrections=CheckCount(sum(len(c) for c in checks), sum(sum(c) for c in checks)),
        judge=_judge_summary(ctx) if any(_checks_answers(e.result) for e in entries) else None,
    )
    return ComparisonResult(summary, [e.result for e in entries])


def _checks_answers(result: CaseResult) -> bool:
    """Whether one of the case's checked parts is its answer."""
    return any(check.part == "answer" for check in result.corrections or ())


def _candidate(
    record: dict[str, Any],
) -> tuple[Candidate, Callable[[str, int], BaselineVersion]]:
    """The summary's candidate, and how a recorded version of its subject is named."""
    if record.get("flow_ref"):
        ref = record["flow_ref"]
        flow_id = ref["flowId"]
        versions = record["comparison"].get("versions") or None
        return (
            Candidate("flow", ref["version"], flow_id=flow_id, versions=versions),
            lambda version, n: BaselineVersion(version, n, flow_id=flow_id),
        )
    ref = record["agent_ref"]
    agent_id = ref["agentId"]
    return (
        Candidate("agent", ref.get("version"), agent_id=agent_id),
        lambda version, n: BaselineVersion(version, n, agent_id=agent_id),
    )


def _judge_summary(ctx: Context) -> Judge:
    """Which judge checked the answers: the configured model, or the deterministic one."""
    adapter = models.judging_adapter(ctx)
    if adapter is not None:
        return Judge("model", provider_id=adapter.provider_id, model=adapter.model)
    return Judge(
        "deterministic",
        note="No judging model is configured, so answer checks "
        "compared text: the same answer for `right`, one containing shouldSay for `wrong`.",
    )


def finish(
    ctx: Context, run_id: str, status: str, result: EvalResult, error: str | None = None
) -> None:
    """End the run with `status` and its result (and the error that ended it, if any)."""
    changes: dict[str, Any] = {"status": status, "completed_at": now_iso(), "result": result}
    if error:
        changes["error"] = error
    store.update(ctx.db, run_id, changes)
