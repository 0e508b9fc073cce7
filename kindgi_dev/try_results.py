"""What the pytest plugin's `try_version` answers: a finished eval run's metrics, read so a
test can gate on them (is a change beyond noise, which cases got worse in every repetition).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Interval:
    """The 95% interval of a metric's change (candidate − baseline)."""

    low: float
    high: float
    level: float = 0.95


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
    """The eval run as the API answered it."""
    cases: Sequence[Mapping[str, Any]] = field(default_factory=list)
    """Each case's comparison (`perCase`)."""

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


def try_result(run: Mapping[str, Any]) -> TryResult:
    """A finished eval run, as the API answered it, read as a `TryResult`."""
    result = run.get("result") or {}
    summary = result.get("summary") or {}
    metrics = {name: _metric(m) for name, m in (summary.get("metrics") or {}).items()}
    return TryResult(
        run["status"], metrics, summary.get("diverged", 0), run, list(result.get("perCase") or [])
    )


def _metric(data: Mapping[str, Any]) -> Metric:
    paired = data.get("paired") or {}
    found = paired.get("interval")
    return Metric(
        data.get("baseline"),
        data.get("candidate"),
        data.get("delta"),
        data.get("n", 0),
        wins=paired.get("wins", 0),
        losses=paired.get("losses", 0),
        ties=paired.get("ties", 0),
        interval=None if not found else Interval(found["low"], found["high"], found["level"]),
        beyond_noise=bool(paired.get("beyondNoise")),
        verdict=paired.get("verdict"),
    )
