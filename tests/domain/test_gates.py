"""A gate policy's checks, each name with a passing and a failing case, against a summary."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from kindgi_dev.domain.gate_specs import (
    ApprovalRequirement,
    ComparisonRequirement,
    EvidenceRequirement,
    GateSpec,
    MetricRequirement,
    ReplayLimits,
    SuiteRequirement,
)
from kindgi_dev.domain.gates import Comparison, GateResult, PromotionRequest, evaluate
from kindgi_dev.domain.live import LiveScope
from kindgi_dev.domain.metrics import Metric, Metrics
from kindgi_dev.domain.results import (
    Baseline,
    BaselineVersion,
    Candidate,
    CheckCount,
    Sampling,
    Scope,
    SuiteRef,
    Summary,
)

AGENT = "acme-ops.article-picker"
PROJECT = "5b0d6f7e-0000-4000-8000-000000000001"
OTHER = "5b0d6f7e-0000-4000-8000-000000000002"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def metric(candidate: float | None, baseline: float | None, **extra: Any) -> Metric:
    """A metric of three cases weighing 9 on each side."""
    delta = None if candidate is None or baseline is None else candidate - baseline
    fields: dict[str, Any] = {"n": 3, "weight": 9.0, "baseline_n": 3, "baseline_weight": 9.0}
    fields.update(extra)
    return Metric(baseline, candidate, delta, **fields)


def summary(**changes: Any) -> Summary:
    """The tutorial's comparison of 0.2.0 against runs recorded on 0.1.0, in PROJECT."""
    base = Summary(
        eval_run_id="er-1",
        status="completed",
        completed_at="2026-03-01T10:00:00.000Z",
        suite=SuiteRef("acme.article-picks", "1.0.0"),
        candidate=Candidate("agent", "0.2.0", agent_id=AGENT),
        baseline=Baseline("recorded", [BaselineVersion("0.1.0", 3, agent_id=AGENT)]),
        scope=Scope(PROJECT),
        cases=3,
        diverged=0,
        refused_writes=0,
        errors=0,
        stopped=0,
        reads="recorded",
        class_weights="as-recorded",
        sampling=Sampling([]),
        repetitions=1,
        metrics=Metrics(
            weighted_yes_share=metric(1.0, 1 / 3),
            judged_coverage=metric(0.5, 0.75),
            weighted_precision_at_k=metric(1.0, 1 / 3, k=10),
        ),
        corrections=CheckCount(0, 0),
    )
    return replace(base, **changes)


def gate(
    spec: GateSpec,
    found: Summary | None = None,
    *,
    version: str = "0.2.0",
    scope: LiveScope | None = None,
    serving: str = "0.1.0",
    run_status: str = "completed",
    content_changed: bool = False,
    named: bool = True,
) -> GateResult:
    """The gate's answer for promoting `version` into `scope` (PROJECT by default)."""
    promotion = PromotionRequest(AGENT, version, scope or LiveScope("project", project_id=PROJECT))
    comparison = (
        Comparison(found or summary(), run_status, content_changed=content_changed)
        if named
        else None
    )
    return evaluate(spec, promotion, comparison, serving_version=serving, now=NOW)


def check(result: GateResult, name: str) -> Any:
    """The one check of that name."""
    found = [c for c in result.checks if c.name == name]
    assert len(found) == 1, [c.name for c in result.checks]
    return found[0]


METRIC_SPEC = GateSpec(metrics=(MetricRequirement("weightedYesShare", min_candidate=0.9),))


def test_an_empty_policy_checks_nothing_and_would_promote() -> None:
    result = gate(GateSpec(), named=False)
    assert (result.checks, result.outcome) == ([], "would-promote")


def test_comparison_required() -> None:
    failed = gate(METRIC_SPEC, named=False)
    assert [c.name for c in failed.checks] == ["comparison.required"]
    assert failed.outcome == "gate-failed"
    assert "evalRunId" in failed.checks[0].message
    passed = check(gate(METRIC_SPEC), "comparison.required")
    assert passed.passed and passed.message == "Eval run er-1 is the comparison."


def test_the_tutorial_policy_lists_every_check_and_would_promote() -> None:
    spec = GateSpec(
        metrics=(MetricRequirement("weightedYesShare", min_candidate=0.9),),
        replay=ReplayLimits(max_errors=0),
    )
    result = gate(spec)
    assert [c.name for c in result.checks] == [
        "comparison.required", "comparison.status", "sameContents", "baselineIsLive",
        "scopeCovered", "replay.maxDiverged", "replay.maxErrors", "replay.maxRefusedWrites",
        "replay.maxStopped", "metric.weightedYesShare.minCandidate",
    ]  # fmt: skip
    assert result.outcome == "would-promote"
    share = check(result, "metric.weightedYesShare.minCandidate")
    assert (share.value, share.threshold) == (1.0, 0.9)
    assert share.message == "The weighted yes share is 1; the policy needs at least 0.9."


def test_comparison_status() -> None:
    assert check(gate(METRIC_SPEC), "comparison.status").passed
    partial = summary(status="partial", errors=1)
    failed = check(gate(METRIC_SPEC, partial), "comparison.status")
    assert not failed.passed
    assert failed.message == "The eval run finished with 1 case in error; the policy allows 0."
    allowed = GateSpec(replay=ReplayLimits(max_errors=1))
    assert check(gate(allowed, partial), "comparison.status").passed
    cancelled = check(gate(allowed, partial, run_status="cancelled"), "comparison.status")
    assert not cancelled.passed and cancelled.value == "cancelled"


def test_comparison_freshness() -> None:
    spec = GateSpec(comparison=ComparisonRequirement(max_age_hours=4))
    fresh = check(gate(spec), "comparison.freshness")
    assert fresh.passed and (fresh.value, fresh.threshold) == (2.0, 4)
    stale = check(
        gate(spec, summary(completed_at="2026-02-28T12:00:00.000Z")), "comparison.freshness"
    )
    assert not stale.passed and stale.value == 24.0
    assert stale.message.startswith("The eval run finished 24 hours ago")


def test_comparison_suite() -> None:
    spec = GateSpec(comparison=ComparisonRequirement(suite=SuiteRequirement("acme.article-picks")))
    assert check(gate(spec), "comparison.suite").passed
    pinned = GateSpec(
        comparison=ComparisonRequirement(suite=SuiteRequirement("acme.article-picks", "2.0.0"))
    )
    failed = check(gate(pinned), "comparison.suite")
    assert not failed.passed
    assert (failed.value, failed.threshold) == (
        "acme.article-picks 1.0.0",
        "acme.article-picks 2.0.0",
    )


def test_comparison_sample() -> None:
    held = summary(sample={"part": "hold-out", "seed": "s", "holdOutShare": 0.3})
    assert check(gate(METRIC_SPEC, held), "comparison.sample").passed
    search = summary(sample={"part": "search", "seed": "s", "holdOutShare": 0.3})
    assert not check(gate(METRIC_SPEC, search), "comparison.sample").passed
    assert "comparison.sample" not in [c.name for c in gate(METRIC_SPEC).checks]


def test_same_contents() -> None:
    same = check(gate(METRIC_SPEC), "sameContents")
    assert same.passed and same.message == f"The eval run tried {AGENT} 0.2.0 as it is now."
    other = check(gate(METRIC_SPEC, version="0.3.0"), "sameContents")
    assert (
        not other.passed
        and other.message == f"The eval run tried {AGENT} 0.2.0, not {AGENT} 0.3.0."
    )
    edited = check(gate(METRIC_SPEC, content_changed=True), "sameContents")
    assert not edited.passed and "saved with other content" in edited.message
    flow = summary(candidate=Candidate("flow", "1.0.0", flow_id="acme-ops.suggest"))
    assert not check(gate(METRIC_SPEC, flow), "sameContents").passed


def test_baseline_is_live() -> None:
    live = check(gate(METRIC_SPEC), "baselineIsLive")
    assert live.passed and (live.value, live.threshold) == (f"{AGENT} 0.1.0", f"{AGENT} 0.1.0")
    moved = check(gate(METRIC_SPEC, serving="0.1.5"), "baselineIsLive")
    assert not moved.passed
    assert moved.message == (
        f"The baseline is {AGENT} 0.1.0, but {AGENT} 0.1.5 is live for the scope: "
        "run the comparison against it."
    )
    versions = [
        BaselineVersion("0.1.0", 2, agent_id=AGENT),
        BaselineVersion("0.1.5", 1, agent_id=AGENT),
    ]
    mixed = summary(baseline=Baseline("recorded", versions))
    assert not check(gate(METRIC_SPEC, mixed), "baselineIsLive").passed


def test_a_baseline_replayed_as_the_live_version_is_live() -> None:
    """A comparison against the live version (`baseline: {live: …}`, issue 24) checks it."""
    replayed = summary(baseline=Baseline("version", agent_id=AGENT, version="0.1.5", via="live"))
    live = check(gate(METRIC_SPEC, replayed, serving="0.1.5"), "baselineIsLive")
    assert live.passed and live.value == f"{AGENT} 0.1.5"
    assert not check(gate(METRIC_SPEC, replayed, serving="0.1.0"), "baselineIsLive").passed


def test_scope_covered() -> None:
    assert check(gate(METRIC_SPEC), "scopeCovered").passed
    assert check(gate(METRIC_SPEC, scope=LiveScope("tenant")), "scopeCovered").passed
    elsewhere = check(
        gate(METRIC_SPEC, scope=LiveScope("project", project_id=OTHER)), "scopeCovered"
    )
    assert not elsewhere.passed and OTHER in elsewhere.message
    org = check(gate(METRIC_SPEC, scope=LiveScope("org", org_id=OTHER)), "scopeCovered")
    assert not org.passed


def test_class_weights_restricted_only() -> None:
    spec = GateSpec(only_restricted_classes=True)
    assert not check(gate(spec), "classWeights.restrictedOnly").passed
    restricted = summary(class_weights="restricted-only")
    assert check(gate(spec, restricted), "classWeights.restrictedOnly").passed


@pytest.mark.parametrize(
    ("name", "limit", "counted", "said"),
    [
        ("maxDiverged", "max_diverged", "diverged", "2 cases diverged from their recorded reads"),
        ("maxErrors", "max_errors", "errors", "2 cases errored"),
        ("maxRefusedWrites", "max_refused_writes", "refused_writes", "2 writes were refused"),
        ("maxStopped", "max_stopped", "stopped", "2 cases stopped at a refused write"),
    ],
)
def test_replay_limits(name: str, limit: str, counted: str, said: str) -> None:
    found = summary(**{counted: 2})
    failed = check(gate(GateSpec(replay=ReplayLimits()), found), f"replay.{name}")
    assert not failed.passed and (failed.value, failed.threshold) == (2, 0)
    assert failed.message == f"{said}; the policy allows 0."
    passed = check(gate(GateSpec(replay=ReplayLimits(**{limit: 2})), found), f"replay.{name}")
    assert passed.passed and passed.threshold == 2


def test_metric_min_candidate() -> None:
    failed = check(
        gate(GateSpec(metrics=(MetricRequirement("judgedCoverage", min_candidate=0.6),))),
        "metric.judgedCoverage.minCandidate",
    )
    assert not failed.passed
    assert failed.message == "Judged coverage is 0.5; the policy needs at least 0.6."
    empty = summary(metrics=replace(summary().metrics, weighted_yes_share=metric(None, 1 / 3)))
    nothing = check(gate(METRIC_SPEC, empty), "metric.weightedYesShare.minCandidate")
    assert not nothing.passed and nothing.value is None


def test_metric_max_drop() -> None:
    spec = GateSpec(metrics=(MetricRequirement("judgedCoverage", max_drop=0.3),))
    passed = check(gate(spec), "metric.judgedCoverage.maxDrop")
    assert passed.passed and (passed.value, passed.threshold) == (-0.25, -0.3)
    tight = GateSpec(metrics=(MetricRequirement("judgedCoverage", max_drop=0.1),))
    failed = check(gate(tight), "metric.judgedCoverage.maxDrop")
    assert not failed.passed
    assert failed.message == (
        "Judged coverage is 0.5 against the live version's 0.75; "
        "the policy allows a drop of at most 0.1."
    )


def test_metric_k() -> None:
    spec = GateSpec(metrics=(MetricRequirement("weightedPrecisionAtK", k=10, min_candidate=0.5),))
    assert check(gate(spec), "metric.weightedPrecisionAtK.k").passed
    five = GateSpec(metrics=(MetricRequirement("weightedPrecisionAtK", k=5, min_candidate=0.5),))
    failed = check(gate(five), "metric.weightedPrecisionAtK.k")
    assert not failed.passed and (failed.value, failed.threshold) == (10, 5)


@pytest.mark.parametrize(
    ("name", "evidence", "passing", "failing"),
    [
        ("minCases", "min_cases", 3, 4),
        ("minWeight", "min_weight", 9.0, 9.5),
        ("baselineMinCases", "min_cases", 3, 4),
        ("baselineMinWeight", "min_weight", 9.0, 9.5),
    ],
)
def test_evidence(name: str, evidence: str, passing: float, failing: float) -> None:
    wanted = MetricRequirement("weightedYesShare", min_candidate=0.5, max_drop=1.0)
    for threshold, ok in ((passing, True), (failing, False)):
        spec = GateSpec(evidence=EvidenceRequirement(**{evidence: threshold}), metrics=(wanted,))
        found = check(gate(spec), f"evidence.weightedYesShare.{name}")
        assert (found.passed, found.threshold) == (ok, threshold)


def test_baseline_evidence_is_checked_only_with_max_drop() -> None:
    spec = GateSpec(evidence=EvidenceRequirement(min_cases=2), metrics=METRIC_SPEC.metrics)
    names = [c.name for c in gate(spec).checks if c.name.startswith("evidence.")]
    assert names == ["evidence.weightedYesShare.minCases"]


def test_approval_defaults_to_a_senior_reviewer_other_than_the_asker() -> None:
    result = gate(GateSpec(approvals=ApprovalRequirement()), named=False)
    assert result.outcome == "needs-approval"
    assert result.approval is not None
    assert (result.approval.role, result.approval.count, result.approval.separate_approver) == (
        "senior", 1, True)  # fmt: skip
    own = gate(GateSpec(approvals=ApprovalRequirement("standard", False)), named=False)
    assert own.approval is not None and not own.approval.separate_approver
    failing = gate(replace(METRIC_SPEC, approvals=ApprovalRequirement()), named=False)
    assert failing.outcome == "gate-failed"
