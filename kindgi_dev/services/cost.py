"""Cost records, the cost aggregate and usage, read from the runs kindgi dev recorded and
priced with what the providers say their models cost (`domain.cost`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..domain.cost import (
    CostGroup,
    CostTotals,
    RecordedTurn,
    RunCost,
    UsageGroup,
    aggregate,
    check_window,
    cost_dimensions,
    cost_of,
    default_window,
    group_usage,
    run_cost,
    total,
    usage_keys,
    usage_records,
)
from ..domain.errors import NotFound, ValidationFailed
from ..domain.time import format_time, now_iso
from ..runtime.providers.function import PROVIDER_ID as FUNCTION_PROVIDER
from ..store import cost as store
from ..store.db import Read
from . import providers
from .context import Context

RECORD_PREFIX = "llm-"
"""A cost record's id: the run's, after this prefix (one record per agent turn)."""


def prices(ctx: Context) -> dict[tuple[str, str], tuple[float, float]]:
    """What each model costs where its provider says: a registered provider's metadata, and
    the function models (free). A configured HTTP provider names no prices."""
    found: dict[tuple[str, str], tuple[float, float]] = {}
    for provider in providers.configured(ctx):
        if provider.id == FUNCTION_PROVIDER:
            found.update({(provider.id, name): (0.0, 0.0) for name in provider.models})
        elif provider.registration is not None:
            for model in provider.registration.models:
                cost = model.get("cost")
                if not isinstance(cost, dict):
                    continue
                prompt, completion = (
                    cost.get("promptUsdPer1kTokens"),
                    cost.get("completionUsdPer1kTokens"),
                )
                if isinstance(prompt, int | float) and isinstance(completion, int | float):
                    found[(provider.id, str(model["name"]))] = (float(prompt), float(completion))
    return found


def turns(
    ctx: Context,
    *,
    start: str | None = None,
    end: str | None = None,
    filters: Mapping[str, str | None] | None = None,
) -> list[RecordedTurn]:
    """The runs of the window (newest first) as cost and usage read them."""
    return store.runs_between(ctx.db, ctx.tenant_id, start=start, end=end, filters=filters or {})


@dataclass(frozen=True)
class CostRecord:
    """One agent turn's model calls, as a cost record."""

    turn: RecordedTurn
    cost_usd: float | None


def records(
    ctx: Context, *, start: str | None, end: str | None, filters: Mapping[str, str | None]
) -> list[CostRecord]:
    """The cost records of the turns that called a model, newest first."""
    priced = prices(ctx)
    return [
        CostRecord(turn, cost_of(turn, priced))
        for turn in turns(ctx, start=start, end=end, filters=filters)
        if turn.called_a_model
    ]


def record(ctx: Context, record_id: str) -> CostRecord:
    """One cost record; 404 `cost-record-not-found`."""
    run_id = record_id.removeprefix(RECORD_PREFIX)
    found = records(ctx, start=None, end=None, filters={"run_id": run_id})
    if not record_id.startswith(RECORD_PREFIX) or not found:
        raise NotFound("cost-record", record_id, id_field="record_id")
    return found[0]


@dataclass(frozen=True)
class Aggregate:
    """The cost aggregate: its groups (at most `limit`), how many there were, the totals."""

    groups: list[CostGroup]
    total_groups: int
    totals: CostTotals
    start: str
    end: str
    dimensions: list[str]


def aggregated(
    ctx: Context,
    group_by: str,
    *,
    start: str | None,
    end: str | None,
    filters: Mapping[str, str | None],
    limit: int,
) -> Aggregate:
    """Cost grouped by `group_by` over the window (the last 30 days when none is given)."""
    dimensions = cost_dimensions(group_by)
    if (start is None) != (end is None):
        raise ValidationFailed("to" if end is None else "from", "goes with the other: give both")
    if start is None or end is None:
        low, high = default_window()
        start, end = format_time(low), format_time(high)
    groups, totals = aggregate(
        turns(ctx, start=start, end=end, filters=filters), dimensions, prices(ctx)
    )
    return Aggregate(groups[:limit], len(groups), totals, start, end, dimensions)


@dataclass(frozen=True)
class UsageWindow:
    """Usage groups of a window, and the time up to which every record is counted."""

    groups: list[UsageGroup]
    watermark: str


def usage(
    ctx: Context,
    start: str,
    end: str,
    *,
    group_by: list[str] | None,
    project_id: str | None,
    kinds: list[str],
    classes: list[str],
    states: list[str],
) -> UsageWindow:
    """The window's usage records (`start` ≤ time < `end`) grouped; filters keep only the
    kinds, classes and states named."""
    check_window(start, end)
    keys = usage_keys(group_by)
    watermark = now_iso()
    found = [
        r
        for turn in turns(ctx, start=start, end=end, filters={"project_id": project_id})
        for r in usage_records(turn)
        if start <= r.at < end
        and (not kinds or r.kind in kinds)
        and (not classes or r.run_class in classes)
        and (not states or r.state in states)
    ]
    return UsageWindow(group_usage(found, keys), watermark)


class Spent:
    """What the replays an eval run's cases rest on cost, added a page of runs at a time
    (a resumed run's cases carried over count with the run that replayed them)."""

    def __init__(self, ctx: Context, read: Read | None = None) -> None:
        self._ctx = ctx
        self._read = read
        self._prices = prices(ctx)
        self._totals = CostTotals()

    def add(self, run_ids: list[str]) -> None:
        """Count these runs' model calls (read through `read` when given)."""
        turns = store.runs_by_ids(self._ctx.db, self._ctx.tenant_id, run_ids, self._read)
        self._totals = total(turns, self._prices, self._totals)

    def cost(self) -> RunCost | None:
        """Model calls, tokens and money so far; None when no replay called a model."""
        return run_cost(self._totals)
