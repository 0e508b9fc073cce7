"""The paired comparison: wins, losses and ties per case, and the bootstrap interval for delta."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.metrics import CaseScore, judged_coverage, precision_at_k, weighted_yes_share
from kindgi_dev.domain.paired import (
    MIN_RESAMPLES,
    RESAMPLES,
    Interval,
    case_outcome,
    coverage_part,
    paired,
    precision_part,
    ratio,
    resamples_for,
    share_part,
)

# Eight cases' weighted yes share, (yes weight, total weight): the recorded runs, then the
# candidate (one repetition). Five cases got better, three stayed the same.
BEFORE = [(1, 3), (1, 3), (1, 3), (2, 3), (0, 2), (1, 2), (1, 1), (0, 1)]
AFTER = [[(1, 1)], [(1, 2)], [(1, 1)], [(2, 2)], [(1, 2)], [(1, 2)], [(1, 1)], [(0, 1)]]


def test_a_known_paired_data_set_gets_its_precomputed_interval() -> None:
    found = paired(BEFORE, AFTER)
    assert (found.wins, found.losses, found.ties, found.n) == (5, 0, 3, 8)
    # Computed once with seed 25 and 2,000 resamples: 4/33 and 5/11, both sides of the
    # observed change, 8/12 − 7/18 = 0.278.
    assert found.interval == Interval(pytest.approx(4 / 33), pytest.approx(5 / 11), 0.95)
    assert (found.resamples, found.seed) == (2000, 25)
    assert found.interval.low < 8 / 12 - 7 / 18 < found.interval.high
    assert (found.beyond_noise, found.verdict) == (True, "better")


def test_the_interval_is_reproducible_and_turns_with_the_sides() -> None:
    assert paired(BEFORE, AFTER) == paired(BEFORE, AFTER)
    swapped = paired([a[0] for a in AFTER], [[b] for b in BEFORE])
    assert swapped.interval is not None
    assert swapped.interval.low == pytest.approx(-5 / 11)
    assert swapped.interval.high == pytest.approx(-4 / 33)
    assert (swapped.wins, swapped.losses, swapped.ties) == (0, 5, 3)
    assert swapped.verdict == "worse"
    other_seed = paired(BEFORE, AFTER, seed=7)
    assert other_seed.seed == 7 and other_seed.interval != paired(BEFORE, AFTER).interval


def test_cases_that_all_stay_the_same_are_no_clear_difference() -> None:
    found = paired([(1, 2)] * 6, [[(1, 2)]] * 6)
    assert (found.wins, found.losses, found.ties) == (0, 0, 6)
    assert found.interval == Interval(0.0, 0.0)
    assert (found.beyond_noise, found.verdict) == (False, "no clear difference")


def test_a_change_that_the_spread_explains_is_no_clear_difference() -> None:
    before = [(1, 2)] * 6
    after = [[(2, 2)], [(0, 2)], [(2, 2)], [(0, 2)], [(2, 2)], [(1, 2)]]
    found = paired(before, after)
    assert (found.wins, found.losses, found.ties) == (3, 2, 1)
    assert found.interval is not None and found.interval.low < 0 < found.interval.high
    assert (found.beyond_noise, found.verdict) == (False, "no clear difference")


def test_three_cases_are_too_few_to_call_beyond_noise() -> None:
    # The tutorial's three cases: each 1/3 before, 1 after. Every resample agrees, so the
    # interval is one point, and three cases still say little.
    found = paired([(1, 3)] * 3, [[(1, 1)]] * 3)
    assert found.interval == Interval(pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert (found.wins, found.beyond_noise, found.verdict) == (3, False, "too few cases")


def test_wins_losses_and_ties_compare_each_case_on_its_own() -> None:
    assert case_outcome((1, 3), [(1, 1)]) == 1
    assert case_outcome((1, 1), [(0, 1)]) == -1
    assert case_outcome((1, 2), [(2, 4)]) == 0
    # The candidate's value is its mean over repetitions: (1 + 0) / 2 = 0.5, the same.
    assert case_outcome((1, 2), [(1, 1), (0, 1)]) == 0
    # A side that doesn't count the case: neither a win nor a loss.
    assert case_outcome((0, 0), [(1, 1)]) is None
    assert case_outcome((1, 1), [(0, 0)]) is None
    found = paired([(1, 1), (0, 0), (1, 2)], [[(0, 0)], [(1, 1)], [(1, 1)]])
    assert (found.wins, found.losses, found.ties, found.n) == (1, 0, 0, 3)


def test_nothing_to_compare_has_no_interval() -> None:
    found = paired([], [])
    assert (found.n, found.interval, found.verdict) == (0, None, "too few cases")
    nothing = paired([(0, 0)] * 4, [[(0, 0)]] * 4)
    assert (nothing.n, nothing.interval) == (0, None)


def test_fewer_resamples_for_large_runs() -> None:
    assert resamples_for(8) == RESAMPLES
    assert resamples_for(1000) == 1000
    assert resamples_for(50_000) == MIN_RESAMPLES
    assert resamples_for(0) == 0


def test_each_metrics_parts_add_up_to_the_summarys_value() -> None:
    scores = [
        CaseScore(1, 3, 4, 3, 1, 3),
        CaseScore(2, 2, 2, 2, 1, 1),
        CaseScore(0, 0, 3, 0, 0, 0),
        CaseScore(0.5, 2, 2, 1, 0.5, 2),
    ]
    assert ratio([share_part(s) for s in scores]) == weighted_yes_share(scores).value
    assert ratio([coverage_part(s) for s in scores]) == judged_coverage(scores).value
    assert ratio([precision_part(s) for s in scores]) == pytest.approx(precision_at_k(scores).value)
