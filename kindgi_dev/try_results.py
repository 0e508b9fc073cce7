"""What the pytest plugin's `try_version` answers: a finished eval run's metrics, read so a
test can gate on them (is a change beyond noise, which cases got worse in every repetition).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .domain.json import JSON, JSONObject
from .domain.narrow import is_number, object_of, whole_or_none
from .domain.paired import LEVEL, Interval


# Exported to pack tests by kindgi_dev.testing, flat; domain.metrics.Metric is the stored one.
@dataclass(frozen=True)
class Metric:
    """One metric of a try: the recorded runs' value and the candidate's, and the paired
    comparison over the cases (`wins`, `losses`, `ties`, `interval`, `verdict`)."""

    baseline: float | None
    candidate: float | None
    delta: float | None
    n: int
    wins: int = 0
    losses: int = 0
    ties: int = 0
    interval: Interval | None = None
    beyond_noise: bool = False
    verdict: str | None = None
    """`better`, `worse`, `no clear difference` or `too few cases`."""


@dataclass(frozen=True)
class TryResult:
    """A finished eval run of a version on test cases."""

    status: str
    metrics: Mapping[str, Metric]
    diverged: int
    run: Mapping[str, Any]
    """The eval run as the API answered it (untyped: a pack's tests read it as they please)."""
    cases: Sequence[Mapping[str, Any]] = field(default_factory=list)
    """Each case's comparison (`perCase`), read as `run` is."""

    def significant(self, metric: str) -> bool:
        """Whether the metric's change is beyond what the cases' spread explains."""
        return self._metric(metric).beyond_noise

    def interval(self, metric: str) -> Interval | None:
        """The 95% interval of the metric's change, or None when nothing was compared."""
        return self._metric(metric).interval

    @property
    def errored(self) -> list[str]:
        """The cases none of whose repetitions answered (left out of the metrics)."""
        return [str(c["caseId"]) for c in self.cases if c.get("errored")]

    @property
    def flaky(self) -> list[str]:
        """The cases some repetitions passed and some didn't."""
        return [str(c["caseId"]) for c in self.cases if c.get("flaky")]

    @property
    def broken(self) -> list[str]:
        """The cases the recorded run passed that fail in every repetition now."""
        return [
            str(c["caseId"])
            for c in self.cases
            if c.get("passedBefore") is True and c.get("passedAny") is False
        ]

    def _metric(self, name: str) -> Metric:
        if name not in self.metrics:
            raise KeyError(f"no metric {name!r}: this run has {', '.join(sorted(self.metrics))}")
        return self.metrics[name]


def try_result(run: JSONObject) -> TryResult:
    """A finished eval run, as the API answered it, read as a `TryResult`."""
    result = object_of(run.get("result"))
    summary = object_of(result.get("summary"))
    metrics = {name: _metric(object_of(m)) for name, m in object_of(summary.get("metrics")).items()}
    cases = result.get("perCase")
    return TryResult(
        str(run["status"]),
        metrics,
        _whole(summary.get("diverged")),
        run,
        [case for case in cases if isinstance(case, dict)] if isinstance(cases, list) else [],
    )


def _number(value: JSON) -> float | None:
    return value if is_number(value) else None


def _whole(value: JSON) -> int:
    return whole_or_none(value) or 0


def _metric(data: JSONObject) -> Metric:
    paired = object_of(data.get("paired"))
    found = object_of(paired.get("interval"))
    low, high, level = _number(found.get("low")), _number(found.get("high")), found.get("level")
    verdict = paired.get("verdict")
    return Metric(
        _number(data.get("baseline")),
        _number(data.get("candidate")),
        _number(data.get("delta")),
        _whole(data.get("n")),
        wins=_whole(paired.get("wins")),
        losses=_whole(paired.get("losses")),
        ties=_whole(paired.get("ties")),
        interval=None
        if low is None or high is None
        else Interval(low, high, _number(level) or LEVEL),
        beyond_noise=bool(paired.get("beyondNoise")),
        verdict=verdict if isinstance(verdict, str) else None,
    )
