"""A test set's metrics across its eval runs, drawn as server-rendered SVG: one chart per
metric, the runs oldest first along the x axis, each named by the version it tried.

Pure geometry from the services' records: the template only writes the shapes out, so a
chart reads the same without JavaScript and is tested without a browser.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..domain.metrics import Metric, Metrics
from ..domain.results import ComparisonResult
from ..services.eval_runs import EvalRun
from . import words

RUNS_DRAWN = 12
"""The newest finished runs a chart draws."""
LEFT, TOP, PLOT_HEIGHT, STEP, LABELS = 44, 12, 120, 120, 40
METRIC_KEYS = {
    "weighted_yes_share": "weightedYesShare",
    "judged_coverage": "judgedCoverage",
    "weighted_precision_at_k": "weightedPrecisionAtK",
    "case_coverage": "caseCoverage",
    "pass_rate": "passRate",
}


@dataclass(frozen=True)
class Dot:
    """One run on a chart: where its value is, the run before it (the recorded runs or a
    baseline version) and, where the paired statistics give one, the change's 95% interval
    drawn about the run before (`low_y`, `high_y`)."""

    run_id: str
    x: float
    y: float | None
    before_y: float | None
    low_y: float | None
    high_y: float | None
    version: str
    swapped: str
    """The parts it ran at other versions, short (`find-articles 0.2.0`)."""
    said: str


@dataclass(frozen=True)
class Chart:
    """One metric across the runs: its name, what it means, and the shapes to draw."""

    key: str
    name: str
    meaning: str
    width: int
    height: int
    dots: list[Dot]
    grid: list[tuple[float, str]]

    @property
    def line(self) -> str:
        """The polyline through the runs that have a value."""
        return " ".join(f"{d.x:.1f},{d.y:.1f}" for d in self.dots if d.y is not None)

    @property
    def plot_bottom(self) -> float:
        return TOP + PLOT_HEIGHT


def y_of(value: float) -> float:
    """Where a share (0 to 1, clamped) is drawn: 100% at the top."""
    return TOP + (1.0 - min(max(float(value), 0.0), 1.0)) * PLOT_HEIGHT


def _finished(records: list[EvalRun]) -> list[tuple[EvalRun, ComparisonResult]]:
    """The newest finished comparisons, oldest first."""
    done = [(r, r.result) for r in records if isinstance(r.result, ComparisonResult)]
    return [(r, result) for r, result in done if r.status == "completed"][:RUNS_DRAWN][::-1]


def _short(part: str) -> str:
    """A swapped part without its pack's prefix: `find-articles 0.2.0`."""
    ident, _, version = part.rpartition(" ")
    return f"{ident.rsplit('.', 1)[-1]} {version}"


def _dot(record: EvalRun, metric: Metric | None, name: str, x: float) -> Dot:
    """A run's dot for one metric (no dot where the metric has no value)."""
    version, _, swapped = words.tried(record).partition(" with ")
    version = version.rsplit(" ", 1)[-1]
    swapped = ", ".join(_short(part) for part in swapped.split(" and ") if part)
    value = None if metric is None else metric.candidate
    before = None if metric is None else metric.baseline
    interval = None if metric is None or metric.paired is None else metric.paired.interval
    low = high = None
    if interval is not None and before is not None:
        low, high = y_of(before + interval.low), y_of(before + interval.high)
    said = f"{words.tried(record)}: {name} {words.percent(value) if value is not None else '—'}"
    if before is not None:
        said += f", {words.percent(before)} before"
    return Dot(
        record.run_id, x, None if value is None else y_of(value),
        None if before is None else y_of(before), low, high, version, swapped, said,
    )  # fmt: skip


def charts(records: list[EvalRun]) -> list[Chart]:
    """A chart per metric any of the set's finished runs has, the runs oldest first."""
    finished = _finished(records)
    if not finished:
        return []
    width = LEFT + STEP * len(finished) + 8
    grid = [(y_of(share), f"{share * 100:.0f}%") for share in (0.0, 0.5, 1.0)]
    drawn = []
    for field in fields(Metrics):
        found = [getattr(result.summary.metrics, field.name) for _, result in finished]
        if all(metric is None for metric in found):
            continue
        key = METRIC_KEYS[field.name]
        first = next(m for m in found if m is not None)
        name = words.metric_name(key, {"k": first.k or 10})
        dots = [
            _dot(record, metric, name, LEFT + STEP * (i + 0.5))
            for i, ((record, _), metric) in enumerate(zip(finished, found, strict=True))
        ]
        meaning = words.metric_meaning(key, first.k or 10)
        drawn.append(Chart(key, name, meaning, width, TOP + PLOT_HEIGHT + LABELS, dots, grid))
    return drawn
