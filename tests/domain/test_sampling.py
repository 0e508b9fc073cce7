"""The seeded split of a test set's cases into its hold-out and search parts."""

from __future__ import annotations

from kindgi_dev.domain.sampling import held_out, sample


def _split(cases: list[tuple[str, bool]], seed: str, share: float) -> tuple[list[str], list[str]]:
    parts = [
        [c[0] for c in sample(cases, part=part, seed=seed, hold_out_share=share,
                              case_id=lambda c: c[0], has_no=lambda c: c[1])]
        for part in ("hold-out", "search")
    ]  # fmt: skip
    return parts[0], parts[1]


def test_each_stratum_is_split_on_its_own_and_the_parts_cover_every_case_once() -> None:
    cases = [(f"c{n}", n < 4) for n in range(10)]
    hold, search = _split(cases, "seed-1", 0.5)
    assert sorted(hold + search) == sorted(c for c, _ in cases)
    assert not set(hold) & set(search)
    assert sum(1 for c in hold if int(c[1:]) < 4) == 2
    assert sum(1 for c in hold if int(c[1:]) >= 4) == 3


def test_the_same_seed_splits_the_same_way_and_another_seed_may_not() -> None:
    cases = [(f"case-{n}", n % 3 == 0) for n in range(30)]
    assert _split(cases, "a", 0.3) == _split(list(cases), "a", 0.3)
    assert any(_split(cases, s, 0.3) != _split(cases, "a", 0.3) for s in ("b", "c", "d"))


def test_a_stratum_of_two_or_more_gives_each_part_one() -> None:
    assert [held_out(n, 0.1) for n in (0, 1, 2, 3, 10)] == [0, 0, 1, 1, 1]
    assert [held_out(n, 0.9) for n in (1, 2, 3, 10)] == [1, 1, 2, 9]
