"""Scores: how people's corrections rate an output, and a candidate beside the recorded runs.

Each verdict weighs its judge class's weight (1 without a class). A correction carries
over to an identified item by key, and to the answer's text or an id-less element only
when its value is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import fmean

from kindgi_dev.domain.items import Item, same_value
from kindgi_dev.domain.json import JSON
from kindgi_dev.domain.paired import Paired

DEFAULT_K = 10


@dataclass(frozen=True)
class Verdict:
    """One corrector's right (`yes`) or wrong verdict on one item of a corrected run."""

    key: str
    pointer: str | None
    rank: int | None
    yes: bool
    weight: float
    restricted: bool
    value: JSON = None
    fresh: bool = False
    """Given on the scored output itself (a replay corrected after it ran), not carried over."""


@dataclass(frozen=True)
class CaseScore:
    """One output's weighted verdicts, item counts and top-k sums."""

    yes_weight: float
    total_weight: float
    items: int
    judged_items: int
    top_k_yes: float
    top_k_total: float
    fresh_yes: float = 0.0
    fresh_total: float = 0.0
    fresh_items: int = 0


@dataclass(frozen=True)
class Measure:
    """One side's value of a metric, with the cases (`n`) and the weight it rests on."""

    value: float | None
    n: int
    weight: float


@dataclass(frozen=True)
class Metric:
    """A comparison metric: the recorded runs' value beside the candidate's (mean over its
    repetitions), the change, and the cases (`n`) and weight each side rests on.

    `spread` is the candidate's range over repetitions (more than one), `fresh_weight` the
    part of its weight given on the replays themselves, `k` precision at k's cut-off,
    `paired` the comparison case by case (`domain.paired`); `baseline_spread` a version
    baseline's range, replayed as many times.
    """

    baseline: float | None
    candidate: float | None
    delta: float | None
    n: int
    weight: float
    baseline_n: int
    baseline_weight: float
    direction: str = "higher"
    baseline_spread: float | None = None
    spread: float | None = None
    fresh_weight: float | None = None
    k: int | None = None
    paired: Paired | None = None


@dataclass(frozen=True)
class Metrics:
    """The summary's metrics; a test-set run adds `case_coverage` and `pass_rate`."""

    weighted_yes_share: Metric
    judged_coverage: Metric
    weighted_precision_at_k: Metric
    case_coverage: Metric | None = None
    pass_rate: Metric | None = None


def carried_verdicts(item: Item, verdicts: Iterable[Verdict]) -> list[Verdict]:
    """The verdicts that apply to `item`: by key when identified, else by key and same value."""
    if item.identified:
        return [v for v in verdicts if v.key == item.key]
    return [v for v in verdicts if v.key == item.key and same_value(v.value, item.value)]


def attach_values(verdicts: Iterable[Verdict], corrected_items: Sequence[Item]) -> list[Verdict]:
    """Verdicts with `value` set from the corrected run's item of the same key, where unset."""
    by_key = {item.key: item.value for item in corrected_items}
    return [
        replace(v, value=by_key[v.key]) if v.value is None and v.key in by_key else v
        for v in verdicts
    ]


def score_case(
    items: Sequence[Item], verdicts: Sequence[Verdict], *, k: int, restricted_only: bool
) -> CaseScore:
    """Score one output: each item's carried verdicts, weighted, and those ranked below `k`."""
    counted = [v for v in verdicts if v.restricted] if restricted_only else list(verdicts)
    yes = total = top_yes = top_total = fresh_yes = fresh_total = 0.0
    judged = fresh_items = 0
    for item in items:
        carried = carried_verdicts(item, counted)
        if not carried:
            continue
        judged += 1
        item_yes = sum(v.weight for v in carried if v.yes)
        item_total = sum(v.weight for v in carried)
        yes += item_yes
        total += item_total
        if item.rank is not None and item.rank < k:
            top_yes += item_yes
            top_total += item_total
        fresh = [v for v in carried if v.fresh]
        if fresh:
            fresh_items += 1
            fresh_yes += sum(v.weight for v in fresh if v.yes)
            fresh_total += sum(v.weight for v in fresh)
    return CaseScore(
        yes, total, len(items), judged, top_yes, top_total, fresh_yes, fresh_total, fresh_items
    )


def weighted_yes_share(scores: Sequence[CaseScore]) -> Measure:
    """Σ yes weight / Σ total weight over the outputs that carry corrections."""
    judged = [s for s in scores if s.judged_items > 0]
    total = sum(s.total_weight for s in judged)
    value = sum(s.yes_weight for s in judged) / total if total > 0 else None
    return Measure(value, len(judged), total)


def judged_coverage(scores: Sequence[CaseScore]) -> Measure:
    """Corrected items / all items, over the outputs that have items."""
    with_items = [s for s in scores if s.items > 0]
    items = sum(s.items for s in with_items)
    value = sum(s.judged_items for s in with_items) / items if items > 0 else None
    return Measure(value, len(with_items), sum(s.total_weight for s in with_items))


case_coverage = judged_coverage


def precision_at_k(scores: Sequence[CaseScore]) -> Measure:
    """Per output, the weighted share right among the corrected top-k items; their mean."""
    ranked = [s for s in scores if s.top_k_total > 0]
    value = fmean(s.top_k_yes / s.top_k_total for s in ranked) if ranked else None
    return Measure(value, len(ranked), sum(s.top_k_total for s in ranked))


def pass_rate(checks: Sequence[bool]) -> float | None:
    """The share of checks passed, or None when there are none."""
    return pass_share(sum(checks), len(checks))


def pass_share(passed: int, checks: int) -> float | None:
    """`pass_rate` from the counts: a summary counts its checks rather than listing them."""
    return passed / checks if checks else None


def compare(
    measure: Callable[[Sequence[CaseScore]], Measure],
    baseline: Sequence[CaseScore],
    candidate: Sequence[Sequence[CaseScore]],
) -> Metric:
    """A metric of the recorded runs beside the candidate's repetitions.

    `candidate` has one list per case, one score per repetition; repetition r is measured
    on each case's r-th score, and the candidate's value is the mean over repetitions.
    """
    before = measure(baseline)
    repetitions = max((len(scores) for scores in candidate), default=0)
    per_repetition = [
        measure([scores[r] for scores in candidate if len(scores) > r]) for r in range(repetitions)
    ]
    values = [m.value for m in per_repetition if m.value is not None]
    after = fmean(values) if values else None
    return Metric(
        baseline=before.value,
        candidate=after,
        delta=_delta(before.value, after),
        n=sum(1 for scores in candidate if any(measure([s]).n for s in scores)),
        weight=fmean(m.weight for m in per_repetition) if per_repetition else 0.0,
        baseline_n=before.n,
        baseline_weight=before.weight,
        spread=max(values) - min(values) if repetitions > 1 and values else None,
    )


def comparison_metrics(
    baseline: Sequence[CaseScore], candidate: Sequence[Sequence[CaseScore]], *, k: int
) -> Metrics:
    """The summary's three metrics: weighted yes share, judged coverage, precision at k."""
    fresh = _fresh_weight(candidate)
    return Metrics(
        weighted_yes_share=replace(
            compare(weighted_yes_share, baseline, candidate), fresh_weight=fresh
        ),
        judged_coverage=replace(compare(judged_coverage, baseline, candidate), fresh_weight=fresh),
        weighted_precision_at_k=replace(compare(precision_at_k, baseline, candidate), k=k),
    )


def _fresh_weight(candidate: Sequence[Sequence[CaseScore]]) -> float | None:
    """Of the candidate's weight, the part given on its replays themselves (None when none)."""
    repetitions = max((len(scores) for scores in candidate), default=0)
    per_repetition = [
        sum(scores[r].fresh_total for scores in candidate if len(scores) > r)
        for r in range(repetitions)
    ]
    fresh = fmean(per_repetition) if per_repetition else 0.0
    return fresh if fresh > 0 else None


def _delta(before: float | None, after: float | None) -> float | None:
    """after − before, or None when either side has no value."""
    if before is None or after is None:
        return None
    return after - before
