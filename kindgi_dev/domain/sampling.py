"""A seeded, deterministic share of a test set's cases: its hold-out part or its search part.

The cases are split once, stratified by judgment: those with a "no" (an item marked
wrong, or a "what it should have done/said" marked wrong) and the others are split on
their own, each in the order of a hash of the seed and the case's id. About
`hold_out_share` of each stratum is held out; a stratum of two or more gives each part
at least one. The same seed always splits the same cases the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

Part = Literal["search", "hold-out"]
C = TypeVar("C")


def _order(seed: str, case_id: str) -> str:
    return hashlib.sha256(f"{seed}\x00{case_id}".encode()).hexdigest()


def held_out(size: int, share: float) -> int:
    """How many of a stratum of `size` cases are held out: about `share`, and for two or
    more, at least one in each part."""
    count = int(size * share + 0.5)
    return min(max(count, 1), size - 1) if size >= 2 else count


def sample(
    cases: Sequence[C],
    *,
    part: Part,
    seed: str,
    hold_out_share: float,
    case_id: Callable[[C], str],
    has_no: Callable[[C], bool],
) -> list[C]:
    """The cases of one part, in their original order."""
    chosen: set[int] = set()
    for stratum in (True, False):
        members = [i for i, case in enumerate(cases) if has_no(case) is stratum]
        members.sort(key=lambda i: _order(seed, case_id(cases[i])))
        cut = held_out(len(members), hold_out_share)
        chosen.update(members[:cut] if part == "hold-out" else members[cut:])
    return [case for i, case in enumerate(cases) if i in chosen]
