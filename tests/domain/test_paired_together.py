"""A summary's comparisons bootstrapped together: the same numbers as each alone, with one
draw a resample shared by those resting on as many cases."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from kindgi_dev.domain import paired as paired_module
from kindgi_dev.domain.paired import Part, paired_repeated, paired_together, resamples_for


def _side(rng: random.Random, cases: int, repetitions: int) -> list[list[Part]]:
    return [
        [(float(rng.randint(0, 2)), float(rng.randint(1, 2))) for _ in range(repetitions)]
        for _ in range(cases)
    ]


def test_comparisons_together_are_each_as_alone_and_share_their_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(7)
    same_cases = [(_side(rng, 40, 1), _side(rng, 40, 2)) for _ in range(3)]
    nothing: list[list[Part]] = [[(0.0, 0.0)]] * 30
    fewer = (_side(rng, 10, 1) + nothing, _side(rng, 10, 1) + nothing)  # 10 cases counted
    comparisons = [*same_cases, fewer]
    alone = [paired_repeated(b, c) for b, c in comparisons]

    draws: list[int] = []  # the cases each resample's draw drew
    real = paired_module._draw

    def counted(rng: random.Random, n: int) -> Callable[[list[float]], tuple[float, ...]]:
        draws.append(n)
        return real(rng, n)

    monkeypatch.setattr(paired_module, "_draw", counted)
    together = paired_together(comparisons)

    assert together == alone
    assert [p.n for p in together] == [40, 40, 40, 10]
    assert together[0].interval is not None and together[3].interval is not None
    assert sorted(draws) == sorted([40] * resamples_for(40) + [10] * resamples_for(10))
