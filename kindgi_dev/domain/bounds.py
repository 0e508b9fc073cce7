"""How large a stored number may be, and how deep a given value may nest.

Every number kindgi dev keeps has an upper bound that keeps whatever is summed or
multiplied from it finite, and so renderable as JSON: a judge class's weight times every
verdict of a suite, a rank beside `k`. The API's request models, the domain checks every
write goes through (API and console alike) and the repair of old rows
(`domain.stored_values`) all read them from here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .errors import ValidationFailed

MAX_DEPTH = 64
"""How deeply arrays and objects may nest in a request body."""

MAX_NUMBER = 2**63 - 1
MIN_NUMBER = -(2**63)
"""The range of a number given in a request, whole or not: what SQLite's 64-bit integers
hold, so `1e23` is refused like the integer it stands for."""

MAX_WEIGHT = 1_000_000
"""The largest judge class weight: a million verdicts at this weight sum to 1e12."""

MAX_RANK = 1_000_000
"""The largest rank of an item: a ranked list this long is no page anyone corrects."""

ARGS_DEPTH = MAX_DEPTH - 4
"""How deeply a call's `args` may nest: a body holds them four levels down
(`{"decisions": {"shouldCall": [{"args": …}]}}`)."""


def value_problem(value: object, depth: int, path: str = "") -> tuple[str, str] | None:
    """Where and why a given JSON value can't be kept: nesting deeper than `depth` levels, or
    a number that isn't finite or lies beyond 64 bits (`MIN_NUMBER`–`MAX_NUMBER`). None when
    it can."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return path, "numbers must be finite"
        if not MIN_NUMBER <= value <= MAX_NUMBER:
            return path, "numbers must fit in 64 bits"
        return None
    children: Iterable[tuple[object, object]]
    if isinstance(value, dict):
        children = value.items()
    elif isinstance(value, list | tuple):
        children = enumerate(value)
    else:
        return None
    if depth <= 0:
        return path, f"nests deeper than the {MAX_DEPTH} levels a request may"
    for key, child in children:
        found = value_problem(child, depth - 1, f"{path}/{key}" if path else str(key))
        if found is not None:
            return found
    return None


def check_value(value: object, depth: int, where: str) -> None:
    """400 at the place inside `where` where a given value can't be kept (`value_problem`)."""
    found = value_problem(value, depth)
    if found is not None:
        inside, reason = found
        raise ValidationFailed(f"{where}/{inside}" if inside else where, reason)


def check_rank(rank: object, where: str) -> int | None:
    """A rank: absent, or a whole number from 0 to `MAX_RANK`."""
    if rank is None:
        return None
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank <= MAX_RANK:
        raise ValidationFailed(where, f"must be a whole number from 0 to {MAX_RANK}")
    return rank


def check_weight(weight: object, where: str = "weight") -> float:
    """A judge class's weight: a number from 0 to `MAX_WEIGHT`."""
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not 0 <= weight <= MAX_WEIGHT
    ):
        raise ValidationFailed(where, f"must be a number from 0 to {MAX_WEIGHT}")
    return weight
