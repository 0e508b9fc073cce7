"""The verdict fields kindgi dev adds to an eval run's result on the wire (docs/api.md):
each metric compared case by case, and the flaky cases. Outside the contract's fields."""

from __future__ import annotations

from pydantic import model_validator

from .wire import WholeNumber, WireModel


class IntervalAnswer(WireModel):
    """A confidence interval for a metric's change (candidate − baseline)."""

    low: WholeNumber
    high: WholeNumber
    level: float


class PairedComparison(WireModel):
    """A metric compared case by case (kindgi dev's extension, docs/api.md): the cases that
    did better, worse or the same, and whether the change is beyond noise."""

    wins: int
    losses: int
    ties: int
    n: int
    interval: IntervalAnswer | None
    resamples: int
    seed: int
    beyond_noise: bool
    verdict: str

    @model_validator(mode="before")
    @classmethod
    def _interval(cls, data: object) -> object:
        """No interval (nothing compared) shows as `null`, not as a missing field."""
        if not isinstance(data, dict):
            return data
        return {"interval": None, **data}


class FlakyCasesAnswer(WireModel):
    """The cases some repetitions passed and some didn't (an extension, docs/api.md)."""

    count: int
    case_ids: list[str]
