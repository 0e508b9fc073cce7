"""How live scopes, gate policy specs and gate checks are kept as JSON, and read back.

They are kept in the shape the API answers them (`projectId`, `minCandidate`, …): camelCase,
each setting only when given, so a row reads as it was published. The kept shapes are
declared here as `TypedDict`s read through pydantic `TypeAdapter`s (a number keeps the type
it was given: `24` stays `24`); this module is the one place that writes and reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NotRequired

from pydantic import TypeAdapter
from typing_extensions import TypedDict

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
from ..domain.json import JSON, JSONObject
from ..domain.live import LiveScope
from ..domain.segments import Segment

Number = int | float
"""A kept number, as it was given (an int is not read back as a float)."""


class _Segment(TypedDict):
    key: str
    value: str


class _Scope(TypedDict):
    kind: str
    orgId: NotRequired[str | None]
    projectId: NotRequired[str | None]
    path: NotRequired[list[_Segment] | None]


class _Suite(TypedDict):
    id: str
    version: NotRequired[str | None]


class _Comparison(TypedDict, total=False):
    maxAgeHours: Number | None
    suite: _Suite | None


class _Evidence(TypedDict, total=False):
    minCases: int | None
    minWeight: Number | None


class _Metric(TypedDict):
    name: str
    k: NotRequired[int | None]
    minCandidate: NotRequired[Number | None]
    maxDrop: NotRequired[Number | None]


class _Replay(TypedDict, total=False):
    maxDiverged: int | None
    maxErrors: int | None
    maxRefusedWrites: int | None
    maxStopped: int | None


class _Approvals(TypedDict, total=False):
    role: str | None
    separateApprover: bool | None


class _Spec(TypedDict, total=False):
    comparison: _Comparison | None
    evidence: _Evidence | None
    metrics: list[_Metric] | None
    replay: _Replay | None
    approvals: _Approvals | None
    onlyRestrictedClasses: bool | None


class _Check(TypedDict):
    name: str
    passed: bool
    message: str
    value: NotRequired[Number | str | None]
    threshold: NotRequired[Number | str | None]


@cache
def _scope() -> TypeAdapter[_Scope]:
    """The kept shapes' adapters are built when first used (as `eval_runs._adapter`)."""
    return TypeAdapter(_Scope)


@cache
def _spec() -> TypeAdapter[_Spec]:
    return TypeAdapter(_Spec)


@cache
def _checks() -> TypeAdapter[list[_Check]]:
    return TypeAdapter(list[_Check])


def _present(pairs: JSONObject) -> JSONObject:
    return {key: value for key, value in pairs.items() if value is not None}


def scope_json(scope: LiveScope) -> JSONObject:
    """A live scope as the wire shows it."""
    path: JSON = None if scope.path is None else [_segment_json(s) for s in scope.path]
    return {"kind": scope.kind, **_present({"orgId": scope.org_id, "projectId": scope.project_id,
                                            "path": path})}  # fmt: skip


def _segment_json(segment: Segment) -> JSON:
    return {"key": segment.key, "value": segment.value}


def scope_of(body: JSON) -> LiveScope:
    """A kept live scope."""
    kept = _scope().validate_python(body)
    path = kept.get("path")
    return LiveScope(
        kept["kind"],
        project_id=kept.get("projectId"),
        org_id=kept.get("orgId"),
        path=None if path is None else tuple(Segment(s["key"], s["value"]) for s in path),
    )


def spec_json(spec: GateSpec) -> JSONObject:
    """A gate policy spec with only the parts and settings it has."""
    body: JSONObject = {}
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


def spec_of(body: JSON) -> GateSpec:
    """A kept gate policy spec."""
    kept = _spec().validate_python(body)
    comparison, evidence = kept.get("comparison"), kept.get("evidence")
    replay, approvals = kept.get("replay"), kept.get("approvals")
    metrics = kept.get("metrics")
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
        only_restricted_classes=kept.get("onlyRestrictedClasses"),
    )


def _comparison_of(kept: _Comparison) -> ComparisonRequirement:
    suite = kept.get("suite")
    return ComparisonRequirement(
        kept.get("maxAgeHours"),
        None if suite is None else SuiteRequirement(suite["id"], suite.get("version")),
    )


def _metric_of(kept: _Metric) -> MetricRequirement:
    return MetricRequirement(
        kept["name"], kept.get("k"), kept.get("minCandidate"), kept.get("maxDrop")
    )


def _replay_of(kept: _Replay) -> ReplayLimits:
    return ReplayLimits(
        kept.get("maxDiverged"),
        kept.get("maxErrors"),
        kept.get("maxRefusedWrites"),
        kept.get("maxStopped"),
    )


def checks_json(checks: Sequence[GateCheck]) -> list[JSON]:
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


def checks_of(body: JSON) -> list[GateCheck]:
    """Kept gate checks."""
    return [
        GateCheck(c["name"], c["passed"], c["message"], c.get("value"), c.get("threshold"))
        for c in _checks().validate_python(body)
    ]
