"""The bounds of stored numbers, checked by the domain for every write (API and console)."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.domain import corrections, test_sets
from kindgi_dev.domain.bounds import (
    ARGS_DEPTH,
    MAX_NUMBER,
    MAX_RANK,
    MAX_WEIGHT,
    MIN_NUMBER,
    check_rank,
    check_value,
    check_weight,
    value_problem,
)
from kindgi_dev.domain.errors import ValidationFailed
from kindgi_dev.domain.expectations import Decisions, ExpectedCall, GivenItem


def nested(levels: int) -> Any:
    """An object `levels` deep."""
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def test_a_value_within_the_limits_has_no_problem() -> None:
    value = {"n": MAX_NUMBER, "m": MIN_NUMBER, "f": -9.2e18, "ok": [True, None, "s", 0.5]}
    assert value_problem(value, 4) is None
    assert value_problem(nested(ARGS_DEPTH), ARGS_DEPTH) is None


@pytest.mark.parametrize(
    ("value", "where", "reason"),
    [
        ({"n": 1e23}, "n", "numbers must fit in 64 bits"),
        ({"list": [0, -(2**63) - 1]}, "list/1", "numbers must fit in 64 bits"),
        ({"n": float("nan")}, "n", "numbers must be finite"),
        ({"n": float("-inf")}, "n", "numbers must be finite"),
        (nested(ARGS_DEPTH + 1), "a/" * (ARGS_DEPTH - 1) + "a", "nests deeper than the 64 levels"),
        ({"a": [[]]}, "a/0", "nests deeper"),
    ],
)
def test_a_value_beyond_the_limits_is_found_where_it_is(
    value: Any, where: str, reason: str
) -> None:
    limit = 2 if where == "a/0" else ARGS_DEPTH
    found = value_problem(value, limit)
    assert found is not None and found[0] == where and found[1].startswith(reason)
    with pytest.raises(ValidationFailed) as refused:
        check_value(value, limit, "decisions/shouldCall/0/args")
    assert refused.value.details["field"] == f"decisions/shouldCall/0/args/{where}"


def test_ranks_and_weights_have_upper_bounds() -> None:
    assert check_rank(None, "rank") is None
    assert check_rank(MAX_RANK, "rank") == MAX_RANK
    assert check_weight(0) == 0 and check_weight(MAX_WEIGHT) == MAX_WEIGHT
    for rank in (-1, MAX_RANK + 1, 2**63, 1.0, True):
        with pytest.raises(ValidationFailed, match="whole number from 0 to 1000000"):
            check_rank(rank, "items/0/rank")
    for weight in (-0.5, MAX_WEIGHT + 0.5, 1e308, float("inf"), float("nan"), False, "2"):
        with pytest.raises(ValidationFailed, match="number from 0 to 1000000"):
            check_weight(weight)


def test_the_domain_checks_refuse_what_the_console_could_send() -> None:
    item = GivenItem("kb-101", "/output/articles/0", "right", MAX_RANK + 1)
    with pytest.raises(ValidationFailed) as refused:
        corrections.check_items([item])
    assert refused.value.details["field"] == "items/0/rank"
    deep = Decisions("wrong", (ExpectedCall("acme.search", nested(500)),))
    with pytest.raises(ValidationFailed) as refused:
        corrections.check_decisions(deep)
    assert refused.value.details["field"].startswith("decisions/shouldCall/0/args/a/a/")
    big = Decisions("wrong", (ExpectedCall("acme.search", {"n": 1e23}),))
    with pytest.raises(ValidationFailed) as refused:
        test_sets.check_expectation([], big, None, {})
    assert refused.value.details["field"] == "decisions/shouldCall/0/args/n"
    with pytest.raises(ValidationFailed) as refused:
        test_sets.check_expectation([item], None, None, {"articles": [{"id": "kb-101"}]})
    assert refused.value.details["field"] == "items/0/rank"
