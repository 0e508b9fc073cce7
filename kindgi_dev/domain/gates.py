"""A gate policy's checks of a promotion, each against the comparison (eval run) it names.

`evaluate` returns every check the policy asks for, each with a plain sentence, the value
found and the threshold asked; the promotion passes when every check does. The check names
are the platform's stable ones (`comparison.status`, `metric.weightedYesShare.minCandidate`,
`replay.maxErrors`, …). Nothing here reads the store: the service hands in the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from .gate_scores import metric_checks, replay_checks
from .gate_specs import (
    ComparisonRequirement,
    GateApproval,
    GateCheck,
    GateSpec,
    SuiteRequirement,
    approval_of,
    count,
    fmt,
    rounded,
)
from .live import LiveScope
from .results import Summary
from .time import parse_time


@dataclass(frozen=True)
class PromotionRequest:
    """What is being promoted: the agent version, and the scope it is to be live in."""

    agent_id: str
    version: str
    scope: LiveScope


@dataclass(frozen=True)
class Comparison:
    """The eval run a promotion names: its summary, its own status, and whether the promoted
    version's content changed after it started (so it tried other content)."""

    summary: Summary
    run_status: str
    content_changed: bool = False


@dataclass(frozen=True)
class GateResult:
    """Every check, whether all passed, and the approval a pass waits for (if any)."""

    checks: list[GateCheck] = field(default_factory=list)
    approval: GateApproval | None = None

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(check.passed for check in self.checks)

    @property
    def outcome(self) -> str:
        """`gate-failed`, `needs-approval` or `would-promote`."""
        if not self.passed:
            return "gate-failed"
        return "needs-approval" if self.approval is not None else "would-promote"

    def failures(self) -> list[GateCheck]:
        """The checks that failed, in order."""
        return [check for check in self.checks if not check.passed]


def evaluate(
    spec: GateSpec,
    promotion: PromotionRequest,
    comparison: Comparison | None,
    *,
    serving_version: str,
    now: datetime,
) -> GateResult:
    """Every check `spec` asks of `promotion`, against the named `comparison` (None when the
    promotion names none) and the version that serves the scope now."""
    approval = approval_of(spec)
    needed = spec.needs_comparison
    if comparison is None:
        if not needed:
            return GateResult([], approval)
        missing = GateCheck(
            "comparison.required",
            False,
            "This policy gates on a comparison, and none was named: pass the eval run of "
            "this version as evalRunId.",
        )
        return GateResult([missing], approval)
    summary = comparison.summary
    checks: list[GateCheck] = []
    if needed:
        checks.append(
            GateCheck(
                "comparison.required", True, f"Eval run {summary.eval_run_id} is the comparison."
            )
        )
    checks.append(status_check(spec, comparison))
    wanted = spec.comparison or ComparisonRequirement()
    if wanted.max_age_hours is not None:
        checks.append(freshness_check(wanted.max_age_hours, summary, now))
    if wanted.suite is not None:
        checks.append(suite_check(wanted.suite, summary))
    if summary.sample is not None:
        checks.append(sample_check(summary.sample))
    checks.append(same_contents_check(promotion, comparison))
    checks.append(baseline_check(promotion, summary, serving_version))
    checks.append(scope_check(promotion.scope, summary))
    if spec.only_restricted_classes is True:
        checks.append(restricted_check(summary))
    if spec.replay is not None:
        checks.extend(replay_checks(spec.replay, summary))
    for metric in spec.metrics or ():
        checks.extend(metric_checks(metric, spec.evidence, summary))
    return GateResult(checks, approval)


def status_check(spec: GateSpec, comparison: Comparison) -> GateCheck:
    """`comparison.status`: the eval run completed, or finished with no more errored cases
    than `replay.maxErrors` allows (0 without it)."""
    summary = comparison.summary
    allowed = (spec.replay.max_errors if spec.replay else None) or 0
    errored = count(summary.errors, "case")
    if comparison.run_status != "completed":
        return GateCheck(
            "comparison.status",
            False,
            f"The eval run is {comparison.run_status}, not completed: compare on a run that "
            "finished.",
            comparison.run_status,
            "completed",
        )
    if summary.status == "completed":
        return GateCheck("comparison.status", True, "The eval run completed.", "completed")
    passed = summary.errors <= allowed
    return GateCheck(
        "comparison.status",
        passed,
        f"The eval run finished with {errored} in error; the policy allows {allowed}.",
        summary.status,
        allowed,
    )


def freshness_check(max_age_hours: float, summary: Summary, now: datetime) -> GateCheck:
    """`comparison.freshness`: the eval run finished at most `max_age_hours` ago."""
    age = (now - parse_time(summary.completed_at)).total_seconds() / 3600
    return GateCheck(
        "comparison.freshness",
        age <= max_age_hours,
        f"The eval run finished {fmt(age)} hours ago; the policy takes comparisons up to "
        f"{fmt(max_age_hours)} hours old.",
        rounded(age),
        max_age_hours,
    )


def suite_check(wanted: SuiteRequirement, summary: Summary) -> GateCheck:
    """`comparison.suite`: the eval run tried the test set the policy names (at its version)."""
    ran = f"{summary.suite.id} {summary.suite.version}"
    asked = wanted.id if wanted.version is None else f"{wanted.id} {wanted.version}"
    passed = summary.suite.id == wanted.id and wanted.version in (None, summary.suite.version)
    message = f"The eval run tried test set {ran}."
    if not passed:
        message = f"The eval run tried test set {ran}; the policy asks for {asked}."
    return GateCheck("comparison.suite", passed, message, ran, asked)


def sample_check(sample: Mapping[str, object]) -> GateCheck:
    """`comparison.sample`: a run on part of the test set counts only on its hold-out part."""
    part = str(sample.get("part"))
    passed = part == "hold-out"
    message = f"The eval run tried the hold-out part of the test set (seed {sample.get('seed')})."
    if not passed:
        message = (
            "The eval run tried the search part of the test set, the part this version was "
            "chosen on: compare on the hold-out part or the whole set."
        )
    return GateCheck("comparison.sample", passed, message, part, "hold-out")


def same_contents_check(promotion: PromotionRequest, comparison: Comparison) -> GateCheck:
    """`sameContents`: the eval run tried exactly the version promoted, as it is now."""
    candidate = comparison.summary.candidate
    promoted = f"{promotion.agent_id} {promotion.version}"
    if candidate.kind != "agent":
        return GateCheck(
            "sameContents",
            False,
            f"The eval run tried flow {candidate.flow_id}; compare the agent itself ({promoted}).",
        )
    tried = f"{candidate.agent_id} {candidate.version}"
    if tried != promoted:
        return GateCheck(
            "sameContents", False, f"The eval run tried {tried}, not {promoted}.", tried, promoted
        )
    if comparison.content_changed:
        return GateCheck(
            "sameContents",
            False,
            f"{promoted} was saved with other content after the eval run started: run the "
            "comparison again.",
            tried,
            promoted,
        )
    return GateCheck(
        "sameContents", True, f"The eval run tried {promoted} as it is now.", tried, promoted
    )


def baseline_check(promotion: PromotionRequest, summary: Summary, serving: str) -> GateCheck:
    """`baselineIsLive`: the eval run compared against the one version that serves the scope."""
    live = f"{promotion.agent_id} {serving}"
    baseline = summary.baseline
    names = (
        [f"{baseline.agent_id} {baseline.version}"]
        if baseline.replayed
        else [
            f"{v.agent_id} {v.version}" if v.agent_id else f"flow {v.flow_id} {v.version}"
            for v in baseline.versions or []
        ]
    )
    shown = ", ".join(names)
    if len(names) != 1:
        return GateCheck(
            "baselineIsLive",
            False,
            f"The eval run's baseline is made of {len(names)} versions ({shown or 'none'}); "
            f"it must be the version live for the scope, {live}.",
            shown,
            live,
        )
    passed = names[0] == live
    message = f"The baseline is {live}, the version live for the scope."
    if not passed:
        message = (
            f"The baseline is {names[0]}, but {live} is live for the scope: run the "
            "comparison against it."
        )
    return GateCheck("baselineIsLive", passed, message, names[0], live)


def scope_check(scope: LiveScope, summary: Summary) -> GateCheck:
    """`scopeCovered`: the test cases' corrections come from where the version is to go live."""
    source = summary.scope.project_id
    if scope.kind == "tenant":
        return GateCheck(
            "scopeCovered", True, f"The corrections came from project {source}, in the tenant."
        )
    if scope.kind == "org":
        return GateCheck(
            "scopeCovered",
            False,
            f"The corrections came from project {source}, which is in no org {scope.org_id}.",
        )
    passed = source == scope.project_id
    message = f"The corrections came from project {source}, the one promoted in."
    if not passed:
        message = (
            f"The corrections came from project {source}; this promotion is for project "
            f"{scope.project_id}, so it needs that project's corrections."
        )
    return GateCheck("scopeCovered", passed, message, source, scope.project_id)


def restricted_check(summary: Summary) -> GateCheck:
    """`classWeights.restrictedOnly`: only restricted judge classes were counted."""
    counted = summary.class_weights or "as-recorded"
    passed = counted == "restricted-only"
    message = "The eval run counted only restricted judge classes."
    if not passed:
        message = (
            "The policy counts only restricted judge classes, and the eval run counted every "
            "class: run it again with classWeights restricted-only."
        )
    return GateCheck("classWeights.restrictedOnly", passed, message, counted, "restricted-only")
