"""Two versions on the same cases: a version baseline replayed beside the candidate, under
exactly its rules (the same recorded tool results, reads, strictness, repetitions, k, class
weights).

Pure. Each side's replays of a case are compared with the recorded run by
`comparison.case_result`, as any candidate's are; so the baseline side's values are what a
run of that version against the recorded runs gives as its candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from . import comparison
from .metrics import (
    CaseScore,
    Metric,
    Metrics,
    compare,
    comparison_metrics,
    judged_coverage,
    pass_rate,
)
from .paired import Paired, Part, coverage_part, paired_repeated, precision_part, share_part
from .results import BaselineReplay, CaseResult

NOTHING_JUDGED = CaseScore(0.0, 0.0, 0, 0, 0.0, 0.0)
"""A case's baseline score when none of the baseline's repetitions answered."""


def replay_of(side: CaseResult) -> BaselineReplay:
    """The baseline version's replays of a case, from their comparison with the recorded run."""
    return BaselineReplay(
        run_ids=side.run_ids,
        scores=side.candidate,
        diverged=side.diverged,
        refused_writes=side.refused_writes,
        approval_skipped=side.approval_skipped,
        changes=side.changes,
        tools=side.tools,
        stopped=side.stopped,
        error=side.error,
        corrections=side.corrections,
        correction_differences=side.correction_differences,
    )


def beside(candidate: CaseResult, side: CaseResult) -> CaseResult:
    """The candidate's comparison of a case with the baseline version's beside it: `baseline`
    is the baseline's first repetition's score, `baseline_replay` all it did."""
    found = replay_of(side)
    first = found.scores[0] if found.scores else NOTHING_JUDGED
    passed_before = side.passed_all if candidate.passed_all is not None else None
    return replace(candidate, baseline=first, baseline_replay=found, passed_before=passed_before)


def rescored(candidate: CaseResult, side: BaselineReplay, again: CaseResult) -> CaseResult:
    """A rescored case's baseline side: its replays' scores (and changes) again, with what
    they did as it was recorded."""
    scores = again.candidate
    found = replace(
        side, scores=scores, changes=side.changes if again.changes is None else again.changes
    )
    return replace(
        candidate, baseline=scores[0] if scores else NOTHING_JUDGED, baseline_replay=found
    )


def version_metrics(
    baseline: Sequence[Sequence[CaseScore]],
    candidate: Sequence[Sequence[CaseScore]],
    *,
    k: int,
    test_set: bool,
    baseline_checks: Sequence[Sequence[bool]] = (),
    candidate_checks: Sequence[Sequence[bool]] = (),
) -> Metrics:
    """The summary's metrics with a version baseline: each side measured as a candidate is
    (each repetition on its own, then their mean), over the same cases in the same order,
    and each metric compared case by case between the two versions (`paired`)."""
    before = _measured(baseline, baseline_checks, k=k, test_set=test_set)
    after = _measured(candidate, candidate_checks, k=k, test_set=test_set)

    def compared(part: Callable[[CaseScore], Part]) -> Paired:
        return paired_repeated(
            [[part(s) for s in scores] for scores in baseline],
            [[part(s) for s in scores] for scores in candidate],
        )

    found = Metrics(
        weighted_yes_share=side_by_side(
            before.weighted_yes_share, after.weighted_yes_share, compared(share_part)
        ),
        judged_coverage=side_by_side(
            before.judged_coverage, after.judged_coverage, compared(coverage_part)
        ),
        weighted_precision_at_k=side_by_side(
            before.weighted_precision_at_k, after.weighted_precision_at_k, compared(precision_part)
        ),
    )
    if before.case_coverage is None or after.case_coverage is None:
        return found
    assert before.pass_rate is not None and after.pass_rate is not None
    checks = paired_repeated(
        [[comparison.checks_part(c)] for c in baseline_checks],
        [[comparison.checks_part(c)] for c in candidate_checks],
    )
    return replace(
        found,
        case_coverage=side_by_side(
            before.case_coverage, after.case_coverage, compared(coverage_part)
        ),
        pass_rate=side_by_side(before.pass_rate, after.pass_rate, checks),
    )


def _measured(
    scores: Sequence[Sequence[CaseScore]],
    checks: Sequence[Sequence[bool]],
    *,
    k: int,
    test_set: bool,
) -> Metrics:
    """One side's metrics, measured as a candidate's are (its values on the candidate side,
    nothing beside them)."""
    found = comparison_metrics((), scores, k=k)
    if not test_set:
        return found
    flat = [p for case in checks for p in case]
    passed = Metric(
        baseline=None,
        candidate=pass_rate(flat),
        delta=None,
        n=sum(1 for case in checks if case),
        weight=len(flat),
        baseline_n=0,
        baseline_weight=0,
    )
    coverage = compare(judged_coverage, (), scores)
    return replace(found, case_coverage=coverage, pass_rate=passed)


def side_by_side(before: Metric, after: Metric, compared: Paired | None = None) -> Metric:
    """One metric of two candidates' measures: `before`'s candidate side becomes the
    baseline (its value, cases, weight and spread), `after`'s the candidate; `compared` is
    the two compared case by case."""
    delta = (
        None
        if before.candidate is None or after.candidate is None
        else after.candidate - before.candidate
    )
    return Metric(
        baseline=before.candidate,
        candidate=after.candidate,
        delta=delta,
        n=after.n,
        weight=after.weight,
        baseline_n=before.n,
        baseline_weight=before.weight,
        direction=after.direction,
        spread=after.spread,
        baseline_spread=before.spread,
        fresh_weight=after.fresh_weight,
        k=after.k,
        paired=compared,
    )
