"""What a candidate did with the corrected items: kept, dropped, and its new ones.

Items match as corrections carry over (`metrics.carried_verdicts`), so a kept item is one
whose correction still applies to the candidate's output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kindgi_dev.domain.items import Item
from kindgi_dev.domain.metrics import Verdict, carried_verdicts


@dataclass(frozen=True)
class ItemChange:
    """A corrected item kept (rank before and now) or dropped (rank before), or a new item."""

    key: str
    rank_before: int | None = None
    rank: int | None = None
    pointer: str | None = None


@dataclass(frozen=True)
class Changes:
    """A case's changes: corrected items the candidate kept and dropped, and its new items."""

    kept: list[ItemChange]
    dropped: list[ItemChange]
    new: list[ItemChange]


def changes(
    baseline_items: Sequence[Item],
    baseline_verdicts: Sequence[Verdict],
    candidate_items: Sequence[Item],
) -> Changes:
    """The changes of a case: corrected items kept (rank before and now), dropped, and new."""
    kept: list[ItemChange] = []
    dropped: list[ItemChange] = []
    for item in baseline_items:
        verdicts = carried_verdicts(item, baseline_verdicts)
        if not verdicts:
            continue
        match = next((c for c in candidate_items if carried_verdicts(c, verdicts)), None)
        if match is None:
            dropped.append(ItemChange(item.key, rank_before=item.rank))
        else:
            kept.append(ItemChange(item.key, rank_before=item.rank, rank=match.rank))
    new = [
        ItemChange(c.key, pointer=c.pointer, rank=c.rank)
        for c in candidate_items
        if not carried_verdicts(c, baseline_verdicts)
    ]
    return Changes(kept, dropped, new)
