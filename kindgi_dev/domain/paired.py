"""Verdicts people can gate on: a metric compared case by case, with an interval for its change.

Each metric is a ratio of sums over the cases it counts (a case's `Part`: numerator and
denominator, counted when the denominator is above 0), so the summary's value and any
resample of the cases are computed the same way. The interval is a paired bootstrap: the
same cases drawn for both sides, with a fixed seed, so a run's numbers are reproducible.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from math import floor
from operator import itemgetter
from statistics import fmean
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .metrics import CaseScore

SEED = 25
"""The bootstrap's seed: the same cases always give the same interval."""
RESAMPLES = 2000
"""Resamples of the cases, fewer for large runs (see `resamples_for`)."""
DRAW_BUDGET = 1_000_000
"""Cases drawn per metric at most: a run of 5,000 cases or more gets 200 resamples, not 2,000."""
MIN_RESAMPLES = 200
LEVEL = 0.95
MIN_CASES = 5
"""Fewer cases compared than this, and no difference is called beyond noise: a bootstrap
of two or three cases whose changes agree gives an interval of one point."""
EPSILON = 1e-9

Part = tuple[float, float]
"""One case's share of a metric: (numerator, denominator); counted when the denominator > 0."""


@dataclass(frozen=True)
class Interval:
    """A confidence interval for a metric's change, candidate − baseline."""

    low: float
    high: float
    level: float = LEVEL


@dataclass(frozen=True)
class Paired:
    """A metric compared case by case: the cases that did better, worse or the same, and
    whether the change is beyond what the cases' spread explains (its interval excludes 0)."""

    wins: int
    losses: int
    ties: int
    n: int
    """Cases resampled: every case either side counts."""
    interval: Interval | None
    resamples: int
    seed: int
    beyond_noise: bool
    verdict: str
    """`better`, `worse`, `no clear difference`, or `too few cases`."""


def share_part(score: CaseScore) -> Part:
    """Weighted yes share: Σ yes weight / Σ total weight, over cases with corrected items."""
    return (score.yes_weight, score.total_weight) if score.judged_items > 0 else (0.0, 0.0)


def coverage_part(score: CaseScore) -> Part:
    """Judged coverage: corrected items / all items, over cases with items."""
    return (float(score.judged_items), float(score.items))


def precision_part(score: CaseScore) -> Part:
    """Precision at k: the mean of each case's top-k share, over cases with one."""
    if score.top_k_total <= 0:
        return (0.0, 0.0)
    return (score.top_k_yes / score.top_k_total, 1.0)


def ratio(parts: Sequence[Part]) -> float | None:
    """Σ numerators / Σ denominators, or None when nothing counts."""
    denominator = sum(d for _, d in parts)
    return sum(n for n, _ in parts) / denominator if denominator > 0 else None


def case_outcome(baseline: Part, candidate: Sequence[Part]) -> int | None:
    """+1 when the candidate did better on the case, −1 worse, 0 the same; None when a
    side doesn't count it. The candidate's value is its mean over repetitions."""
    return repeated_outcome([baseline], candidate)


def repeated_outcome(baseline: Sequence[Part], candidate: Sequence[Part]) -> int | None:
    """`case_outcome` with both sides one part per repetition (a version baseline is
    replayed as often as the candidate), each side's value its mean over them."""
    before, after = _mean(baseline), _mean(candidate)
    if before is None or after is None:
        return None
    change = after - before
    return 0 if abs(change) <= EPSILON else (1 if change > 0 else -1)


def _mean(parts: Sequence[Part]) -> float | None:
    """The mean of the values of the parts that count, or None when none does."""
    values = [v for part in parts if (v := ratio([part])) is not None]
    return fmean(values) if values else None


def resamples_for(cases: int) -> int:
    """2,000 resamples, fewer when the cases are many (at least 200)."""
    if cases <= 0:
        return 0
    return max(MIN_RESAMPLES, min(RESAMPLES, DRAW_BUDGET // cases))


def paired(
    baseline: Sequence[Part], candidate: Sequence[Sequence[Part]], *, seed: int = SEED
) -> Paired:
    """Compare the recorded runs and the candidate over the same cases: `baseline[i]` and
    `candidate[i]` (one part per repetition) are case i."""
    return paired_repeated([[part] for part in baseline], candidate, seed=seed)


def paired_repeated(
    baseline: Sequence[Sequence[Part]], candidate: Sequence[Sequence[Part]], *, seed: int = SEED
) -> Paired:
    """Compare two sides over the same cases, each one part per repetition on case i (a
    version baseline is replayed as often as the candidate). The interval is the 2.5th to
    97.5th percentile of the change over resamples of the cases, each drawn with
    replacement for both sides."""
    return paired_together([(baseline, candidate)], seed=seed)[0]


Sides = tuple[Sequence[Sequence[Part]], Sequence[Sequence[Part]]]
"""A comparison's baseline and candidate, one part per repetition on each case."""

Columns = list[tuple[list[float], list[float]]]
"""A side by repetition: its numerators and its denominators, case by case (a case with
fewer repetitions counts 0 in the others). Equal values share one float, so a column holds
a reference a case, not a part's tuple and list."""


def columns(side: Iterable[Sequence[Part]], floats: dict[float, float] | None = None) -> Columns:
    """A side's parts as columns, in one pass; `floats` keeps equal values once (shared by
    the columns built with it)."""
    kept = {} if floats is None else floats
    found: Columns = []
    for cases, parts in enumerate(side):
        for r, (numerator, denominator) in enumerate(parts):
            if r == len(found):
                found.append(([0.0] * cases, [0.0] * cases))
            nums, dens = found[r]
            nums.append(kept.setdefault(numerator, numerator))
            dens.append(kept.setdefault(denominator, denominator))
        for nums, dens in found[len(parts) :]:
            nums.append(0.0)
            dens.append(0.0)
    return found


def paired_together(comparisons: Sequence[Sides], *, seed: int = SEED) -> list[Paired]:
    """Several comparisons at once (a summary's metrics), each as `paired_repeated` gives
    it: those resting on as many cases share each resample's draw, the same draw each
    would make alone (every bootstrap seeds its generator alike), drawn once."""
    floats: dict[float, float] = {}
    return paired_columns(
        [(columns(b, floats), columns(c, floats)) for b, c in comparisons], seed=seed
    )


def paired_columns(
    comparisons: Sequence[tuple[Columns, Columns]], *, seed: int = SEED
) -> list[Paired]:
    """`paired_together` of sides given as columns: what a summary of many cases holds."""
    counted = [_counted(baseline, candidate) for baseline, candidate in comparisons]
    sizes = [sum(kept) for kept in counted]
    intervals: dict[int, Interval | None] = {}
    for n in sorted(set(sizes)):
        group = [i for i, size in enumerate(sizes) if size == n]
        sides = [
            (_kept(comparisons[i][0], counted[i], n), _kept(comparisons[i][1], counted[i], n))
            for i in group
        ]
        intervals.update(zip(group, _bootstrap(sides, resamples_for(n), seed), strict=True))
    return [
        _paired(baseline, candidate, sizes[i], intervals[i], seed)
        for i, (baseline, candidate) in enumerate(comparisons)
    ]


def _cases(baseline: Columns, candidate: Columns) -> int:
    """How many cases a comparison's columns hold (a side with no repetition holds none)."""
    sizes = {len(nums) for nums, _ in (*baseline, *candidate)}
    assert len(sizes) <= 1, "a paired comparison needs both sides per case"
    return sizes.pop() if sizes else 0


def _counted(baseline: Columns, candidate: Columns) -> list[bool]:
    """Whether the comparison counts each case: a part of either side above 0. Flags, not
    the counted cases' indexes, so that a run of 50,000 cases makes no int a case."""
    flags = [False] * _cases(baseline, candidate)
    for _, dens in (*baseline, *candidate):
        flags = [flag or d > 0 for flag, d in zip(flags, dens, strict=True)]
    return flags


def _kept(side: Columns, counted: list[bool], n: int) -> Columns:
    """A side's columns on the `n` counted cases (the same columns when those are all)."""
    if not side or n == len(counted):
        return side
    return [(list(compress(nums, counted)), list(compress(dens, counted))) for nums, dens in side]


def _parts_of(side: Columns, case: int) -> list[Part]:
    """One case's parts on a side, one a repetition."""
    return [(nums[case], dens[case]) for nums, dens in side]


def _paired(
    baseline: Columns, candidate: Columns, n: int, interval: Interval | None, seed: int
) -> Paired:
    cases = range(_cases(baseline, candidate))
    outcomes = [repeated_outcome(_parts_of(baseline, i), _parts_of(candidate, i)) for i in cases]
    wins = sum(1 for o in outcomes if o == 1)
    losses = sum(1 for o in outcomes if o == -1)
    ties = sum(1 for o in outcomes if o == 0)
    compared = wins + losses + ties
    return Paired(
        wins=wins,
        losses=losses,
        ties=ties,
        n=n,
        interval=interval,
        resamples=resamples_for(n),
        seed=seed,
        beyond_noise=_beyond(interval) and compared >= MIN_CASES,
        verdict=_verdict(interval, compared),
    )


def _beyond(interval: Interval | None) -> bool:
    return interval is not None and (interval.low > EPSILON or interval.high < -EPSILON)


def _verdict(interval: Interval | None, compared: int) -> str:
    if interval is None or compared < MIN_CASES:
        return "too few cases"
    if interval.low > EPSILON:
        return "better"
    if interval.high < -EPSILON:
        return "worse"
    return "no clear difference"


def _bootstrap(
    comparisons: Sequence[tuple[Columns, Columns]], count: int, seed: int
) -> list[Interval | None]:
    """Each comparison's percentile interval of the change over `count` resamples of its
    cases (all of them as many), or None when fewer than half the resamples have a change
    (a side with nothing to count). Equal columns (a denominator both sides share, the
    same scores on both) are summed once a resample, and a column of one value once."""
    n = _cases(*comparisons[0])
    if n == 0 or count == 0:
        return [None] * len(comparisons)
    rng = random.Random(seed)
    distinct, fixed = _distinct(comparisons)
    sides = [
        tuple([(distinct[id(nums)], distinct[id(dens)]) for nums, dens in side] for side in pair)
        for pair in comparisons
    ]
    varying = [column for column in {id(c): c for c in distinct.values()}.values()
               if id(column) not in fixed]  # fmt: skip
    changes: list[list[float]] = [[] for _ in comparisons]
    for _ in range(count):
        pick = _draw(rng, n)
        sums = dict(fixed)
        for column in varying:
            sums[id(column)] = sum(pick(column))
        for (before, after), kept in zip(sides, changes, strict=True):
            old = _drawn_mean(before, sums)
            new = None if old is None else _drawn_mean(after, sums)
            if old is not None and new is not None:
                kept.append(new - old)
    return [_interval(kept, count) for kept in changes]


def _distinct(
    comparisons: Sequence[tuple[Columns, Columns]],
) -> tuple[dict[int, list[float]], dict[int, float]]:
    """Every column (by id) to the first column equal to it; and the drawn sum of each
    column of one value, the same in every resample (its value added n times, in order)."""
    first: list[list[float]] = []
    distinct: dict[int, list[float]] = {}
    fixed: dict[int, float] = {}
    for pair in comparisons:
        for side in pair:
            for column in (c for nums_dens in side for c in nums_dens):
                kept = next((k for k in first if k is column or k == column), None)
                if kept is None:
                    first.append(column)
                    kept = column
                distinct[id(column)] = kept
                if id(kept) not in fixed and len(set(kept)) == 1:
                    fixed[id(kept)] = sum(kept)
    return distinct, fixed


def _draw(rng: random.Random, n: int) -> Callable[[list[float]], tuple[float, ...]]:
    """One resample of n cases drawn with replacement; given a column, the drawn cases'
    values in the order drawn (one C call a column, not a Python step a case).

    The draws are `rng.choices(range(n), k=n)`'s, made as it makes them (`floor(random() *
    n)`, one `random()` a case) without its indexing of the range: a fifth less time, and
    the same numbers to the last bit (tests/domain/test_paired_columns.py)."""
    rand = rng.random
    drawn = [floor(rand() * n) for _ in repeat(None, n)]
    if n == 1:
        return lambda column: (column[drawn[0]],)
    return itemgetter(*drawn)


def _interval(changes: list[float], count: int) -> Interval | None:
    if len(changes) * 2 < count:
        return None
    changes.sort()
    return Interval(_percentile(changes, 0.025), _percentile(changes, 0.975))


def _drawn_mean(
    side: list[tuple[list[float], list[float]]], sums: dict[int, float]
) -> float | None:
    """A side's value on the drawn cases: its repetitions' ratios (Σ drawn numerators /
    Σ drawn denominators, each summed in the order drawn), averaged."""
    values = [
        sums[id(nums)] / denominator for nums, dens in side if (denominator := sums[id(dens)]) > 0
    ]
    return fmean(values) if values else None


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The q-th quantile of sorted values, interpolated between the two nearest ranks."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction
