"""What a candidate did with the corrected items: kept, dropped, and its new ones.

Items match as corrections carry over (`metrics.carried_verdicts`), so a kept item is one
whose correction still applies to the candidate's output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kindgi_dev.domain.items import Item
from kindgi_dev.domain.metrics import Verdict, carried_verdicts


def changes(
    baseline_items: Sequence[Item],
    baseline_verdicts: Sequence[Verdict],
    candidate_items: Sequence[Item],
) -> dict[str, list[dict[str, Any]]]:
    """The `changes` of a case: corrected items kept (rank before and now), dropped, and new."""
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for item in baseline_items:
        verdicts = carried_verdicts(item, baseline_verdicts)
        if not verdicts:
            continue
        match = next((c for c in candidate_items if carried_verdicts(c, verdicts)), None)
        if match is None:
            dropped.append(_with(key=item.key, rankBefore=item.rank))
        else:
            kept.append(_with(key=item.key, rankBefore=item.rank, rank=match.rank))
    new = [
        _with(key=c.key, pointer=c.pointer, rank=c.rank)
        for c in candidate_items
        if not carried_verdicts(c, baseline_verdicts)
    ]
    return {"kept": kept, "dropped": dropped, "new": new}


def _with(**fields: Any) -> dict[str, Any]:
    """A wire entry without its absent (None) fields."""
    return {name: value for name, value in fields.items() if value is not None}
