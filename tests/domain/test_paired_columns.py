"""A summary's sides as columns: a reference a case and repetition, padded where a case has
fewer repetitions, equal values kept once, and the same comparison as from the parts."""

from __future__ import annotations

import math
import random
from statistics import fmean

from kindgi_dev.domain.paired import (
    SEED,
    Part,
    columns,
    paired_columns,
    paired_repeated,
    resamples_for,
)


def test_columns_pad_missing_repetitions_and_keep_equal_values_once() -> None:
    floats: dict[float, float] = {}
    side: list[list[Part]] = [[(1.0, 2.0)], [], [(float(1), 2.0), (0.5, 1.0)]]
    found = columns(side, floats)
    assert found == [([1.0, 0.0, 1.0], [2.0, 0.0, 2.0]), ([0.0, 0.0, 0.5], [0.0, 0.0, 1.0])]
    assert found[0][0][0] is found[0][0][2]  # the second 1.0 is the first one's float
    assert sorted(floats) == [0.5, 1.0, 2.0]


def _value(side: list[list[Part]], drawn: list[int]) -> float | None:
    """A side's value on the drawn cases, step by step: its repetitions' Σ num / Σ den, averaged."""
    repetitions = max((len(c) for c in side), default=0)
    values = []
    for r in range(repetitions):
        parts = [side[i][r] if len(side[i]) > r else (0.0, 0.0) for i in drawn]
        denominator = sum(d for _, d in parts)
        if denominator > 0:
            values.append(sum(n for n, _ in parts) / denominator)
    return fmean(values) if values else None


def _interval(baseline: list[list[Part]], candidate: list[list[Part]]) -> tuple[float, float]:
    """The percentile interval as the bootstrap is specified, from lists of parts."""
    kept = [i for i in range(len(baseline)) if any(p[1] > 0 for p in (*baseline[i], *candidate[i]))]
    rng, changes = random.Random(SEED), []
    for _ in range(resamples_for(len(kept))):
        drawn = [kept[i] for i in rng.choices(range(len(kept)), k=len(kept))]
        old, new = _value(baseline, drawn), _value(candidate, drawn)
        if old is not None and new is not None:
            changes.append(new - old)
    changes.sort()
    ends = []
    for q in (0.025, 0.975):
        position = q * (len(changes) - 1)
        below = math.floor(position)
        above = min(below + 1, len(changes) - 1)
        ends.append(changes[below] + (changes[above] - changes[below]) * (position - below))
    return ends[0], ends[1]


def test_columns_give_the_interval_lists_of_parts_give_to_the_last_bit() -> None:
    rng = random.Random(3)

    def side(repetitions: int) -> list[list[Part]]:
        return [
            [
                (float(rng.randint(0, 3)), rng.choice((0.0, 0.7, 1.3)))
                for _ in range(rng.randint(0, repetitions))
            ]
            for _ in range(60)
        ]

    baseline, candidate = side(1), side(3)
    (found,) = paired_columns([(columns(baseline), columns(candidate))])
    assert found.interval is not None
    assert (found.interval.low, found.interval.high) == _interval(baseline, candidate)
    assert found == paired_repeated(baseline, candidate)


def test_equal_and_one_value_columns_summed_once_give_the_same_interval() -> None:
    """A candidate scoring as the baseline on some metric, a denominator of one value on
    every case, and two metrics sharing a column: each summed once a resample (or once a
    run), and every interval still the one lists of parts give, to the last bit."""
    rng = random.Random(5)
    cases = 80
    shares = [[(rng.choice((0.0, 1 / 3, 1.0)), 1.0)] for _ in range(cases)]
    picked = [[(float(rng.randint(0, 2)), 3.0)] for _ in range(cases)]
    changed = [[(rng.choice((0.0, 1 / 3, 1.0)), 1.0)] for _ in range(cases)]
    baseline_columns = columns(shares)
    comparisons = [
        (baseline_columns, columns(changed)),
        (columns(picked), columns(picked)),  # the same scores on both sides
        (baseline_columns, columns(picked)),  # a column another metric has too
    ]
    found = paired_columns(comparisons)
    expected = [_interval(shares, changed), _interval(picked, picked), _interval(shares, picked)]
    intervals = [(p.interval.low, p.interval.high) for p in found if p.interval is not None]
    assert intervals == expected
