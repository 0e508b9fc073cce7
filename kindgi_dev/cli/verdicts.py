"""What a finished eval run's verdict prints: its metrics as a table (`--table`) and one
summary line on stderr, each saying whether a change is beyond noise."""

from __future__ import annotations

from ..domain.json import JSON, JSONObject
from .answers import member
from .output import Column

METRICS = (
    "weightedYesShare",
    "judgedCoverage",
    "weightedPrecisionAtK",
    "caseCoverage",
    "passRate",
)

METRIC_COLUMNS: list[Column] = [
    ("METRIC", lambda row: row["metric"]),
    ("BASELINE", lambda row: row["baseline"]),
    ("CANDIDATE", lambda row: row["candidate"]),
    ("DELTA", lambda row: row["delta"]),
    ("95% INTERVAL", lambda row: row["interval"]),
    ("WINS/LOSSES/TIES", lambda row: row["cases"]),
    ("VERDICT", lambda row: row["verdict"]),
]


def number(value: JSON) -> str:
    """A share with three decimals, trailing zeros dropped (`0.333`, `1`); `–` for none."""
    if not isinstance(value, int | float):
        return "–"
    return f"{value:.3f}".rstrip("0").rstrip(".")


def signed(value: JSON) -> str:
    """A change with its sign (`+0.667`, `-0.25`, `0`)."""
    if value is None:
        return "–"
    shown = number(value)
    return shown if shown in ("0", "-0") or shown.startswith("-") else f"+{shown}"


def interval(paired: JSONObject) -> str:
    """`+0.41 to +0.92`, or `–` without an interval."""
    found = member(paired, "interval")
    if not found:
        return "–"
    return f"{signed(found['low'])} to {signed(found['high'])}"


def _summary(run: JSON) -> JSONObject | None:
    result = run.get("result") if isinstance(run, dict) else None
    summary = result.get("summary") if isinstance(result, dict) else None
    return summary if isinstance(summary, dict) else None


def metric_rows(run: JSON) -> list[JSONObject] | None:
    """One row per metric of a finished judged run, or None for anything else."""
    summary = _summary(run)
    if summary is None:
        return None
    rows: list[JSONObject] = []
    for name in METRICS:
        metric = member(member(summary, "metrics"), name)
        if not metric:
            continue
        paired = member(metric, "paired")
        rows.append(
            {
                "metric": name,
                "baseline": number(metric.get("baseline")),
                "candidate": number(metric.get("candidate")),
                "delta": signed(metric.get("delta")),
                "interval": interval(paired),
                "cases": "/".join(str(paired[k]) for k in ("wins", "losses", "ties"))
                if paired
                else "–",
                "verdict": paired.get("verdict", "–"),
            }
        )
    return rows


def summary_line(run: JSON) -> str | None:
    """The run's verdict in one line: the headline metric, its interval and what it means,
    the cases won, lost and tied, and those errored and flaky."""
    summary = _summary(run)
    if summary is None:
        return None
    share = member(member(summary, "metrics"), "weightedYesShare")
    paired = member(share, "paired")
    verdict = {
        "better": "better, and beyond noise",
        "worse": "worse, and beyond noise",
        "no clear difference": "no clear difference",
        "too few cases": "too few cases to tell a change from noise",
    }.get(str(paired.get("verdict", "")), "no verdict")
    line = (
        f"weightedYesShare {number(share.get('baseline'))} → {number(share.get('candidate'))} "
        f"({signed(share.get('delta'))}, 95% interval {interval(paired)}): {verdict}; "
        f"{summary.get('cases', 0)} cases: {paired.get('wins', 0)} better, "
        f"{paired.get('losses', 0)} worse, {paired.get('ties', 0)} the same, "
        f"{summary.get('errors', 0)} errored"
    )
    flaky = member(summary, "flaky")
    if flaky:
        ids = flaky["caseIds"]
        listed = f": {', '.join(map(str, ids))}" if isinstance(ids, list) and ids else ""
        line += f", {flaky['count']} flaky{listed}"
    return line
