"""An eval run's result: the comparison of the cases stored so far, and ending a run with it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...domain import comparison
from ...domain.metrics import CaseScore
from ...domain.results import (
    Baseline,
    BaselineVersion,
    Candidate,
    CaseResult,
    CheckCount,
    DryRunResult,
    FinishedCase,
    FlakyCases,
    Judge,
    ModelUse,
    Sampling,
    Scope,
    SuiteRef,
    Summary,
)
from ...domain.time import now_iso
from ...store import eval_runs as store
from ...store import eval_suites as suite_store
from ...store.eval_run_json import sample_json
from ...store.eval_runs import EvalRunRow
from .. import cost, models, test_set_versions
from ..context import Context
from .baselines import VersionTally

T = TypeVar("T", bound=Hashable)


def _judged_in(ctx: Context, record: EvalRunRow) -> str:
    """The project the cases' corrections came from (the summary's `scope`, which the gate's
    `scopeCovered` checks): the frozen version's or the suite's, not the one the replays
    were recorded in. A pulled or imported version's corrections are another runtime's, so
    for one of those it is the eval run's own project."""
    frozen = record.frozen_version
    if frozen is not None:
        made_here = test_set_versions.frozen_row(ctx, frozen.test_set_id, frozen.version)
        return record.project_id if made_here is None else made_here.project_id
    suite = suite_store.get_version(ctx.db, record.suite_id, record.suite_version)
    return suite.project_id if suite is not None and suite.project_id else record.project_id


def summarize(ctx: Context, run_id: str, *, partial: bool = False) -> Summary:
    """The comparison of the cases stored so far, read a page at a time: only each case's
    scores and counts are held, never every case's result at once."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record.settings
    tally = _Tally()
    versus = None if settings.baseline_version is None else VersionTally()
    with ctx.db.scanning() as read:  # every replay's row is read: not into a reader's cache
        spent = cost.Spent(ctx, read)
        for page in store.finished_pages(ctx.db, run_id):
            for entry in page:
                tally.add(entry)
                if versus is not None:
                    versus.add(entry)
            spent.add(replay_ids(entry.result for entry in page))
    test_set = record.frozen_version is not None
    metrics = (
        comparison.metrics(
            tally.baseline,
            tally.candidate,
            k=settings.k,
            test_set=test_set,
            baseline_checks=tally.baseline_checks,
            candidate_checks=tally.checks,
        )
        if versus is None
        else versus.metrics(k=settings.k, test_set=test_set)
    )
    candidate, baseline_of = _candidate(record)
    recorded = Baseline(
        "recorded", [baseline_of(version, n) for version, n in sorted(tally.versions.items())]
    )
    return Summary(
        eval_run_id=run_id,
        status="partial" if partial or tally.errors else "completed",
        completed_at=now_iso(),
        suite=SuiteRef(record.suite_id, record.suite_version),
        candidate=candidate,
        baseline=settings.baseline_version or recorded,
        scope=Scope(_judged_in(ctx, record)),
        cases=tally.cases,
        diverged=tally.diverged,
        refused_writes=tally.refused_writes,
        errors=tally.errors,
        stopped=tally.stopped,
        reads=settings.reads,
        class_weights=settings.class_weights,
        sample=None if settings.sample is None else sample_json(settings.sample),
        sampling=Sampling([ModelUse(p, m, n) for (p, m), n in sorted(tally.models.items())]),
        repetitions=settings.repetitions,
        metrics=metrics,
        corrections=CheckCount(
            sum(len(c) for c in tally.checks), sum(sum(c) for c in tally.checks)
        ),
        judge=_judge_summary(ctx) if tally.checks_answers else None,
        flaky=FlakyCases(len(tally.flaky), tally.flaky) if settings.repetitions > 1 else None,
        resume_of=settings.resume_of,
        guardrails_tripped=dict(sorted(tally.tripped.items())) or None,
        baseline_replays=None if versus is None else versus.counts(),
        cost=spent.cost(),
        reused_answers=tally.reused if settings.reuse else None,
    )


def replay_ids(results: Iterable[CaseResult]) -> list[str]:
    """The runs the cases' comparisons rest on: each candidate repetition's, and a version
    baseline's."""
    found: list[str] = []
    for result in results:
        found += result.run_ids
        if result.baseline_replay is not None:
            found += result.baseline_replay.run_ids
    return found


@dataclass
class _Tally:
    """What the summary needs of each finished case, gathered one case at a time.

    Equal scores and check lists are kept once (`_same`): cases mostly score alike, so a
    run of thousands holds a list of references, not thousands of small objects whose
    memory, scattered among longer-lived ones, would not go back to the system.
    """

    cases: int = 0
    diverged: int = 0
    refused_writes: int = 0
    errors: int = 0
    stopped: int = 0
    reused: int = 0
    checks_answers: bool = False
    baseline: list[CaseScore] = field(default_factory=list)
    candidate: list[tuple[CaseScore, ...]] = field(default_factory=list)
    checks: list[tuple[bool, ...]] = field(default_factory=list)
    baseline_checks: list[tuple[bool, ...]] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    models: dict[tuple[str, str], int] = field(default_factory=dict)
    flaky: list[str] = field(default_factory=list)
    tripped: dict[str, int] = field(default_factory=dict)
    _kept: dict[Hashable, Any] = field(default_factory=dict)

    def _same(self, value: T) -> T:
        """The equal value seen before, or this one, now kept."""
        kept: T = self._kept.setdefault(value, value)
        return kept

    def add(self, entry: FinishedCase) -> None:
        """Count one finished case. A stopped case, and one none of whose repetitions
        answered (errored), are left out of both sides of the metrics and the checks, so
        the sides rest on the same cases, one entry each, in order."""
        result = entry.result
        self.cases += 1
        self.diverged += result.diverged
        self.refused_writes += result.refused_writes
        self.errors += result.error is not None
        self.stopped += result.stopped is not None
        self.reused += entry.reused
        self.checks_answers = self.checks_answers or _checks_answers(result)
        if result.flaky:
            self.flaky.append(result.case_id)
        if result.stopped is None and (result.error is None or result.candidate):
            self.baseline.append(self._same(result.baseline))
            self.candidate.append(self._same(tuple(self._same(s) for s in result.candidate)))
            self.checks.append(self._same(tuple(entry.checks)))
            self.baseline_checks.append(self._same(tuple(entry.baseline_checks)))
        self.versions[entry.made_on] = self.versions.get(entry.made_on, 0) + 1
        for guardrail in result.guardrails_tripped or ():
            self.tripped[guardrail] = self.tripped.get(guardrail, 0) + 1
        for m in entry.models:
            key = (m.get("id", ""), m.get("model", ""))
            self.models[key] = self.models.get(key, 0) + 1


def _checks_answers(result: CaseResult) -> bool:
    """Whether one of the case's checked parts is its answer."""
    return any(check.part == "answer" for check in result.corrections or ())


def _candidate(record: EvalRunRow) -> tuple[Candidate, Callable[[str, int], BaselineVersion]]:
    """The summary's candidate, and how a recorded version of its subject is named."""
    flow = record.flow_ref
    if flow is not None:
        versions = record.settings.versions
        return (
            Candidate("flow", flow.version, flow_id=flow.flow_id, versions=versions),
            lambda version, n: BaselineVersion(version, n, flow_id=flow.flow_id),
        )
    agent = record.agent_ref
    assert agent is not None, "an eval run tries an agent or a flow"
    return (
        Candidate("agent", agent.version, agent_id=agent.agent_id),
        lambda version, n: BaselineVersion(version, n, agent_id=agent.agent_id),
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
    ctx: Context,
    run_id: str,
    status: str,
    result: Summary | DryRunResult,
    error: str | None = None,
) -> None:
    """End the run with `status` and its result: a judged run's summary (its cases are
    stored already) or a dry run's preview; and the error that ended it, if any."""
    store.finish(ctx.db, run_id, status=status, completed_at=now_iso(), result=result, error=error)
