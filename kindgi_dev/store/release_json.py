"""How live scopes, gate policy specs and gate checks are kept as JSON, and read back.

They are kept in the shape the API answers them (`projectId`, `minCandidate`, …), so a row
reads as it was published; this module is the one place that writes and reads those names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain.gate_specs import (
    ApprovalRequirement,
    ComparisonRequirement,
    EvidenceRequirement,
    GateCheck,
    GateSpec,
    MetricRequirement,
    ReplayLimits,
    SuiteRequirement,
)
from ..domain.live import LiveScope
from ..domain.segments import Segment


def scope_json(scope: LiveScope) -> dict[str, Any]:
    """A live scope as the wire shows it."""
    body: dict[str, Any] = {"kind": scope.kind}
    if scope.org_id is not None:
        body["orgId"] = scope.org_id
    if scope.project_id is not None:
        body["projectId"] = scope.project_id
    if scope.path is not None:
        body["path"] = [{"key": s.key, "value": s.value} for s in scope.path]
    return body


def scope_of(body: Mapping[str, Any]) -> LiveScope:
    """A kept live scope."""
    path = body.get("path")
    return LiveScope(
        body["kind"],
        project_id=body.get("projectId"),
        org_id=body.get("orgId"),
        path=None if path is None else tuple(Segment(s["key"], s["value"]) for s in path),
    )


def _present(pairs: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in pairs.items() if value is not None}


def spec_json(spec: GateSpec) -> dict[str, Any]:
    """A gate policy spec with only the parts and settings it has."""
    body: dict[str, Any] = {}
    if spec.comparison is not None:
        suite = spec.comparison.suite
        body["comparison"] = _present(
            {
                "maxAgeHours": spec.comparison.max_age_hours,
                "suite": None
                if suite is None
                else _present({"id": suite.id, "version": suite.version}),
            }
        )
    if spec.evidence is not None:
        body["evidence"] = _present(
            {"minCases": spec.evidence.min_cases, "minWeight": spec.evidence.min_weight}
        )
    if spec.metrics is not None:
        body["metrics"] = [
            _present({"name": m.name, "k": m.k, "minCandidate": m.min_candidate,
                      "maxDrop": m.max_drop})
            for m in spec.metrics
        ]  # fmt: skip
    if spec.replay is not None:
        r = spec.replay
        body["replay"] = _present({"maxDiverged": r.max_diverged, "maxErrors": r.max_errors,
                                   "maxRefusedWrites": r.max_refused_writes,
                                   "maxStopped": r.max_stopped})  # fmt: skip
    if spec.approvals is not None:
        a = spec.approvals
        body["approvals"] = _present({"role": a.role, "separateApprover": a.separate_approver})
    if spec.only_restricted_classes is not None:
        body["onlyRestrictedClasses"] = spec.only_restricted_classes
    return body


def spec_of(body: Mapping[str, Any]) -> GateSpec:
    """A kept gate policy spec."""
    comparison, evidence = body.get("comparison"), body.get("evidence")
    replay, approvals = body.get("replay"), body.get("approvals")
    metrics = body.get("metrics")
    return GateSpec(
        comparison=None if comparison is None else _comparison_of(comparison),
        evidence=None
        if evidence is None
        else EvidenceRequirement(evidence.get("minCases"), evidence.get("minWeight")),
        metrics=None if metrics is None else tuple(_metric_of(m) for m in metrics),
        replay=None if replay is None else _replay_of(replay),
        approvals=None
        if approvals is None
        else ApprovalRequirement(approvals.get("role"), approvals.get("separateApprover")),
        only_restricted_classes=body.get("onlyRestrictedClasses"),
    )


def _comparison_of(body: Mapping[str, Any]) -> ComparisonRequirement:
    suite = body.get("suite")
    return ComparisonRequirement(
        body.get("maxAgeHours"),
        None if suite is None else SuiteRequirement(suite["id"], suite.get("version")),
    )


def _metric_of(body: Mapping[str, Any]) -> MetricRequirement:
    return MetricRequirement(
        body["name"], body.get("k"), body.get("minCandidate"), body.get("maxDrop")
    )


def _replay_of(body: Mapping[str, Any]) -> ReplayLimits:
    return ReplayLimits(
        body.get("maxDiverged"),
        body.get("maxErrors"),
        body.get("maxRefusedWrites"),
        body.get("maxStopped"),
    )


def checks_json(checks: list[GateCheck]) -> list[dict[str, Any]]:
    """Gate checks as the wire shows them (a whole number as `1`, not `1.0`)."""
    return [
        _present({"name": c.name, "passed": c.passed, "message": c.message,
                  "value": _number(c.value), "threshold": _number(c.threshold)})
        for c in checks
    ]  # fmt: skip


def _number(value: float | str | None) -> float | int | str | None:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def checks_of(body: list[Mapping[str, Any]]) -> list[GateCheck]:
    """Kept gate checks."""
    return [
        GateCheck(c["name"], c["passed"], c["message"], c.get("value"), c.get("threshold"))
        for c in body
    ]
