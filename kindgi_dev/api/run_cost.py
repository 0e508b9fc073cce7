"""What an eval run's replays cost, as its summary says it (an extension beside the
contract's fields, docs/api.md)."""

from __future__ import annotations

from .wire import WholeNumber, WireModel


class CostTokens(WireModel):
    """Prompt and completion tokens."""

    prompt: int
    completion: int


class ComparisonCost(WireModel):
    """What the candidate's replays cost: model calls, tokens, money where priced."""

    model_calls: int
    tokens: CostTokens
    cost_usd: WholeNumber | None = None
