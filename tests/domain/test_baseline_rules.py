"""Two versions on the same cases: each side measured as a candidate is, paired up."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kindgi_dev.domain import comparison
from kindgi_dev.domain.metrics import CaseScore
from kindgi_dev.domain.paired import paired, paired_repeated
from kindgi_dev.domain.results import BaselineReplay, CaseResult
from kindgi_dev.domain.two_versions import (
    NOTHING_JUDGED,
    beside,
    rescored,
    side_by_side,
    version_metrics,
)


def score(yes: float, total: float, items: int, judged: int) -> CaseScore:
    """A ranked output whose judged items are all in the top k."""
    return CaseScore(yes, total, items, judged, yes, total)


ONE_RIGHT = score(1, 1, 2, 1)  # the right article kept, the text new
THREE = score(1, 3, 4, 3)  # three articles, one right, the text new
TWO = score(1, 2, 3, 2)


def case(candidate: list[CaseScore], error: str | None = None) -> CaseResult:
    return CaseResult("c", ["r"], THREE, candidate, False, 0, False, False, error=error)


def test_each_side_is_what_it_would_be_as_a_candidate() -> None:
    older = [(ONE_RIGHT,), (ONE_RIGHT,), (THREE,)]
    newer = [(TWO,), (TWO,), (TWO,)]
    paired = version_metrics(older, newer, k=10, test_set=False)
    alone = comparison.metrics([THREE] * 3, older, k=10, test_set=False)
    share = paired.weighted_yes_share
    assert (share.baseline, share.baseline_n, share.baseline_weight) == (
        alone.weighted_yes_share.candidate, alone.weighted_yes_share.n,
        alone.weighted_yes_share.weight)  # fmt: skip
    assert (share.baseline, share.candidate) == (pytest.approx(3 / 5), 0.5)
    assert share.delta == pytest.approx(0.5 - 3 / 5)
    assert paired.weighted_precision_at_k.baseline == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert paired.weighted_precision_at_k.k == 10
    assert paired.case_coverage is None and paired.pass_rate is None


def test_repetitions_are_measured_one_at_a_time_on_both_sides() -> None:
    older = [(ONE_RIGHT, THREE), (ONE_RIGHT, ONE_RIGHT)]
    newer = [(TWO, TWO), (TWO, TWO)]
    share = version_metrics(older, newer, k=10, test_set=False).weighted_yes_share
    assert share.baseline == pytest.approx((1 + 2 / 4) / 2)  # 2/2 then (1+1)/(3+1)
    assert share.baseline_spread == pytest.approx(1 - 2 / 4)
    assert (share.candidate, share.spread) == (0.5, 0)


def test_a_side_that_errored_on_a_case_rests_on_fewer_cases() -> None:
    share = version_metrics([(), (ONE_RIGHT,)], [(TWO,), (TWO,)], k=10, test_set=False)
    assert (share.weighted_yes_share.baseline_n, share.weighted_yes_share.n) == (1, 2)


def test_the_test_sets_metrics_pair_up_too() -> None:
    paired = version_metrics(
        [(ONE_RIGHT,)], [(TWO,)], k=10, test_set=True,
        baseline_checks=[(True, False)], candidate_checks=[(True, True)],
    )  # fmt: skip
    assert paired.pass_rate is not None and paired.case_coverage is not None
    assert (paired.pass_rate.baseline, paired.pass_rate.candidate) == (0.5, 1)
    assert (paired.pass_rate.baseline_n, paired.pass_rate.baseline_weight) == (1, 2)
    assert paired.case_coverage.baseline == 0.5


def test_a_case_shows_the_baselines_first_score_and_all_it_did() -> None:
    side = replace(case([ONE_RIGHT, THREE]), run_ids=["b1", "b2"], diverged=True)
    found = beside(case([TWO]), side)
    assert found.baseline == ONE_RIGHT
    assert found.baseline_replay is not None
    assert (found.baseline_replay.run_ids, found.baseline_replay.scores) == (
        ["b1", "b2"], [ONE_RIGHT, THREE])  # fmt: skip
    assert found.baseline_replay.diverged and not found.diverged
    errored = beside(case([TWO]), case([], error="model-invocation-failed"))
    assert errored.baseline == NOTHING_JUDGED
    assert errored.baseline_replay is not None
    assert errored.baseline_replay.error == "model-invocation-failed"


def test_a_rescore_keeps_what_the_baseline_did_and_scores_it_again() -> None:
    side = BaselineReplay(["b1"], [THREE], True, 2, False)
    again = rescored(case([TWO]), side, case([ONE_RIGHT]))
    assert again.baseline == ONE_RIGHT
    assert again.baseline_replay == replace(side, scores=[ONE_RIGHT])


def test_side_by_side_has_no_change_without_both_values() -> None:
    values = version_metrics([()], [(TWO,)], k=10, test_set=False).weighted_yes_share
    assert (values.baseline, values.candidate, values.delta) == (None, 0.5, None)
    assert side_by_side(values, values).delta == 0


def test_the_two_versions_are_compared_case_by_case() -> None:
    older = [(ONE_RIGHT,), (ONE_RIGHT, THREE), (TWO,)]
    newer = [(TWO,), (TWO, TWO), (TWO,)]
    found = version_metrics(older, newer, k=10, test_set=False).weighted_yes_share.paired
    assert found is not None
    # Case 1: 1 → 0.5, worse; case 2: mean(1, 1/3) = 2/3 → 0.5, worse; case 3: the same.
    assert (found.wins, found.losses, found.ties, found.n) == (0, 2, 1, 3)
    assert found.verdict == "too few cases"
    same = paired_repeated([[(1.0, 2.0)]], [[(1.0, 2.0)]])
    assert (same.ties, paired([(1.0, 2.0)], [[(1.0, 2.0)]]).ties) == (1, 1)
