"""A gate policy's checks of the counts and scores an eval run summed up: how many cases
diverged, errored or stopped and how many writes were refused, and each gated metric with
the evidence it rests on."""

from __future__ import annotations

from .gate_specs import (
    EvidenceRequirement,
    GateCheck,
    MetricRequirement,
    ReplayLimits,
    count,
    fmt,
    rounded,
)
from .metrics import Metric
from .results import Summary

EPSILON = 1e-9
"""Room for float rounding when a score is compared with a threshold."""


_REPLAY = (
    ("maxDiverged", "max_diverged", "diverged",
     "case diverged from its recorded reads", "cases diverged from their recorded reads"),
    ("maxErrors", "max_errors", "errors", "case errored", "cases errored"),
    ("maxRefusedWrites", "max_refused_writes", "refused_writes",
     "write was refused", "writes were refused"),
    ("maxStopped", "max_stopped", "stopped",
     "case stopped at a refused write", "cases stopped at a refused write"),
)  # fmt: skip


def replay_checks(limits: ReplayLimits, summary: Summary) -> list[GateCheck]:
    """`replay.maxDiverged|maxErrors|maxRefusedWrites|maxStopped`: each count against its
    limit, 0 for a limit the block leaves out."""
    checks = []
    for name, limit_field, count_field, one, many in _REPLAY:
        allowed: int = getattr(limits, limit_field) or 0
        found: int = getattr(summary, count_field)
        checks.append(
            GateCheck(
                f"replay.{name}",
                found <= allowed,
                f"{found} {one if found == 1 else many}; the policy allows {allowed}.",
                found,
                allowed,
            )
        )
    return checks


def _metric_of(summary: Summary, name: str) -> Metric:
    """A summary's metric by its wire name."""
    metrics = summary.metrics
    found: Metric = {
        "weightedYesShare": metrics.weighted_yes_share,
        "judgedCoverage": metrics.judged_coverage,
        "weightedPrecisionAtK": metrics.weighted_precision_at_k,
    }[name]
    return found


def _label(name: str, k: int | None) -> str:
    """A metric's name in words."""
    if name == "weightedYesShare":
        return "The weighted yes share"
    if name == "judgedCoverage":
        return "Judged coverage"
    return f"Precision at {k if k is not None else 'k'}"


def metric_checks(
    wanted: MetricRequirement, evidence: EvidenceRequirement | None, summary: Summary
) -> list[GateCheck]:
    """`metric.<name>.k|minCandidate|maxDrop` and the metric's `evidence.<name>.*` checks."""
    metric = _metric_of(summary, wanted.name)
    label = _label(wanted.name, metric.k)
    at = f"metric.{wanted.name}"
    checks = []
    if wanted.name == "weightedPrecisionAtK" and wanted.k is not None:
        passed = metric.k == wanted.k
        message = f"The eval run ranked the top {wanted.k}, as the policy asks."
        if not passed:
            message = (
                f"The eval run ranked the top {metric.k}; the policy gates the top {wanted.k}: "
                f"run it again with k {wanted.k}."
            )
        checks.append(GateCheck(f"{at}.k", passed, message, metric.k, wanted.k))
    checks.extend(evidence_checks(wanted, evidence, metric, label))
    if wanted.min_candidate is not None:
        checks.append(min_candidate_check(at, label, metric, wanted.min_candidate))
    if wanted.max_drop is not None:
        checks.append(max_drop_check(at, label, metric, wanted.max_drop))
    return checks


def min_candidate_check(at: str, label: str, metric: Metric, floor: float) -> GateCheck:
    """`metric.<name>.minCandidate`: the candidate's value reaches the floor."""
    value = metric.candidate
    if value is None:
        return GateCheck(
            f"{at}.minCandidate",
            False,
            f"{label} has no corrected items to rest on for the candidate; the policy needs at "
            f"least {fmt(floor)}.",
            None,
            floor,
        )
    return GateCheck(
        f"{at}.minCandidate",
        value + EPSILON >= floor,
        f"{label} is {fmt(value)}; the policy needs at least {fmt(floor)}.",
        rounded(value),
        floor,
    )


def max_drop_check(at: str, label: str, metric: Metric, most: float) -> GateCheck:
    """`metric.<name>.maxDrop`: the candidate falls at most `most` below the baseline."""
    candidate, baseline = metric.candidate, metric.baseline
    if candidate is None or baseline is None:
        side = "candidate" if candidate is None else "baseline"
        return GateCheck(
            f"{at}.maxDrop",
            False,
            f"{label} can't be compared: the {side} has no corrected items to rest on.",
            None,
            -most,
        )
    return GateCheck(
        f"{at}.maxDrop",
        candidate + EPSILON >= baseline - most,
        f"{label} is {fmt(candidate)} against the live version's {fmt(baseline)}; the "
        f"policy allows a drop of at most {fmt(most)}.",
        rounded(candidate - baseline),
        -most,
    )


def evidence_checks(
    wanted: MetricRequirement, evidence: EvidenceRequirement | None, metric: Metric, label: str
) -> list[GateCheck]:
    """`evidence.<name>.minCases|minWeight`, and for a metric with `maxDrop` the baseline's
    (`baselineMinCases|baselineMinWeight`): a comparison resting on two corrections says little."""
    if evidence is None:
        return []
    at = f"evidence.{wanted.name}"
    sides = [("min", "the candidate", metric.n, metric.weight)]
    if wanted.max_drop is not None:
        sides.append(("baselineMin", "the baseline", metric.baseline_n, metric.baseline_weight))
    checks = []
    for prefix, whose, cases, weight in sides:
        if evidence.min_cases is not None:
            checks.append(
                GateCheck(
                    f"{at}.{prefix}Cases",
                    cases >= evidence.min_cases,
                    f"{label} rests on {count(cases, 'corrected case')} for {whose}; the "
                    f"policy needs at least {evidence.min_cases}.",
                    cases,
                    evidence.min_cases,
                )
            )
        if evidence.min_weight is not None:
            checks.append(
                GateCheck(
                    f"{at}.{prefix}Weight",
                    weight + EPSILON >= evidence.min_weight,
                    f"{label} rests on corrections weighing {fmt(weight)} for {whose}; the "
                    f"policy needs at least {fmt(evidence.min_weight)}.",
                    rounded(weight),
                    evidence.min_weight,
                )
            )
    return checks
