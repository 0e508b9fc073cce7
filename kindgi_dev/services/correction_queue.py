"""The correction queue: the caller's finished runs with no correction of theirs yet, one at
a time, oldest or newest first, and how far through them the caller is."""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.errors import ValidationFailed
from ..domain.segments import Segment
from ..store import correction_queue as store
from ..store.correction_queue import QueueCounts, QueueFilter
from . import runs
from .context import Context
from .verdicts import corrector_of

__all__ = ["QueueCounts", "QueueFilter", "corrections_per_run", "counts", "segment_of"]


def segment_of(text: str, where: str = "segment") -> Segment | None:
    """A segment level typed as `key=value` (`company=acme`); None for empty text."""
    if not text:
        return None
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise ValidationFailed(where, "must be key=value, as company=acme")
    return Segment(key.strip(), value.strip())


def counts(
    ctx: Context, given: QueueFilter, *, newest_first: bool, after: str | None = None
) -> QueueCounts:
    """The queue's runs, those the caller corrected, and the next one to correct: past the
    run `after` (one skipped) when given; 404 when that run is not one of the tenant's."""
    position = None
    if after is not None:
        skipped = runs.get_record(ctx, after)
        position = (str(skipped.created_at), str(skipped.id))
    corrector = corrector_of(ctx, None)
    return store.counts(
        ctx.db, ctx.tenant_id, corrector, given, newest_first=newest_first, after=position
    )


def corrections_per_run(ctx: Context, run_ids: Sequence[str]) -> dict[str, tuple[int, bool]]:
    """Each corrected run's live corrections: how many, and whether one is the caller's."""
    return store.corrections_per_run(ctx.db, run_ids, corrector_of(ctx, None))
