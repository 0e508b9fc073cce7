"""Scores: how people's corrections rate an output, and a candidate beside the recorded runs.

Each verdict weighs its judge class's weight (1 without a class). A correction carries
over to an identified item by key, and to the answer's text or an id-less element only
when its value is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import fmean
from typing import Any

from kindgi_dev.domain.items import Item, same_value

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
    value: Any = None
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

    def to_wire(self) -> dict[str, Any]:
        """The score as a comparison case result's `baseline`/`candidate` entry."""
        wire: dict[str, Any] = {
            "yesWeight": wire_number(self.yes_weight),
            "totalWeight": wire_number(self.total_weight),
            "items": self.items,
            "judgedItems": self.judged_items,
            "topK": {
                "yesWeight": wire_number(self.top_k_yes),
                "totalWeight": wire_number(self.top_k_total),
            },
        }
        if self.fresh_items:
            wire["fresh"] = {
                "yesWeight": wire_number(self.fresh_yes),
                "totalWeight": wire_number(self.fresh_total),
                "items": self.fresh_items,
            }
        return wire


@dataclass(frozen=True)
class Measure:
    """One side's value of a metric, with the cases (`n`) and the weight it rests on."""

    value: float | None
    n: int
    weight: float


def wire_number(value: float | None) -> float | int | None:
    """A number as JSON shows it: whole floats as integers (`1`, not `1.0`)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


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
    return sum(checks) / len(checks) if checks else None


def compare(
    measure: Callable[[Sequence[CaseScore]], Measure],
    baseline: Sequence[CaseScore],
    candidate: Sequence[Sequence[CaseScore]],
) -> dict[str, Any]:
    """A ComparisonMetric wire dict: the recorded runs beside the candidate's repetitions.

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
    metric: dict[str, Any] = {
        "baseline": wire_number(before.value),
        "candidate": wire_number(after),
        "delta": wire_number(_delta(before.value, after)),
        "n": sum(1 for scores in candidate if any(measure([s]).n for s in scores)),
        "weight": wire_number(fmean(m.weight for m in per_repetition) if per_repetition else 0.0),
        "baselineN": before.n,
        "baselineWeight": wire_number(before.weight),
        "direction": "higher",
    }
    if repetitions > 1 and values:
        metric["spread"] = wire_number(max(values) - min(values))
    return metric


def comparison_metrics(
    baseline: Sequence[CaseScore], candidate: Sequence[Sequence[CaseScore]], *, k: int
) -> dict[str, dict[str, Any]]:
    """The summary's three metrics: weightedYesShare, judgedCoverage, weightedPrecisionAtK."""
    yes_share = compare(weighted_yes_share, baseline, candidate)
    coverage = compare(judged_coverage, baseline, candidate)
    return {
        "weightedYesShare": _with_fresh(yes_share, candidate),
        "judgedCoverage": _with_fresh(coverage, candidate),
        "weightedPrecisionAtK": {"k": k, **compare(precision_at_k, baseline, candidate)},
    }


def _with_fresh(metric: dict[str, Any], candidate: Sequence[Sequence[CaseScore]]) -> dict[str, Any]:
    """`freshWeight`: of the candidate's weight, the part given on its replays themselves."""
    repetitions = max((len(scores) for scores in candidate), default=0)
    per_repetition = [
        sum(scores[r].fresh_total for scores in candidate if len(scores) > r)
        for r in range(repetitions)
    ]
    fresh = fmean(per_repetition) if per_repetition else 0.0
    if fresh > 0:
        metric["freshWeight"] = wire_number(fresh)
    return metric


def _delta(before: float | None, after: float | None) -> float | None:
    """after − before, or None when either side has no value."""
    if before is None or after is None:
        return None
    return after - before
