"""`/v1/gate-policies`: publish a version, read, list, versions, unregister and reinstate."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator
from starlette.responses import Response

from ..domain.gate_specs import (
    ApprovalRequirement,
    ComparisonRequirement,
    EvidenceRequirement,
    GatePolicy,
    GateSpec,
    MetricRequirement,
    ReplayLimits,
    SuiteRequirement,
)
from ..domain.paging import Page
from ..services import gate_policies
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .release_wire import ScopeAnswer, ScopeBody, ScopeQuery, scope_answer
from .responses import json_response
from .routing import plain, shape
from .wire import WHOLE, WireModel, WirePage, given

Role = Literal["standard", "senior", "admin"]


class SuiteBody(WireModel):
    """The test set the comparison must have tried, at a version when given."""

    id: str = Field(min_length=1)
    version: str | None = Field(default=None, min_length=1)


class ComparisonBody(WireModel):
    """How recent the comparison must be, and on which test set."""

    max_age_hours: float | None = Field(default=None, gt=0)
    suite: SuiteBody | None = None


class EvidenceBody(WireModel):
    """The judged evidence behind each gated metric."""

    min_cases: Annotated[int, Field(ge=0), WHOLE] | None = None
    min_weight: float | None = Field(default=None, ge=0)


class MetricBody(WireModel):
    """One gated metric: what the candidate must reach."""

    model_config = ConfigDict(json_schema_extra={"allOf": [
        {"anyOf": [given("minCandidate"), given("maxDrop")]},
        {"anyOf": [{"properties": {"name": {"const": "weightedPrecisionAtK"}}},
                   {"not": given("k")}]},
    ]})  # fmt: skip

    name: Literal["weightedYesShare", "judgedCoverage", "weightedPrecisionAtK"]
    k: Annotated[int, Field(ge=1, le=100), WHOLE] | None = None
    min_candidate: float | None = Field(default=None, ge=0, le=1)
    max_drop: float | None = Field(default=None, ge=0, le=1)

    @model_validator(mode="after")
    def _sound(self) -> MetricBody:
        if self.k is not None and self.name != "weightedPrecisionAtK":
            raise ValueError("k applies to weightedPrecisionAtK only")
        if self.min_candidate is None and self.max_drop is None:
            raise ValueError(f"{self.name} needs minCandidate, maxDrop or both: what it must reach")
        return self


class ReplayLimitsBody(WireModel):
    """The most diverged, errored and stopped cases and refused writes allowed (0 if left out)."""

    max_diverged: Annotated[int, Field(ge=0), WHOLE] | None = None
    max_errors: Annotated[int, Field(ge=0), WHOLE] | None = None
    max_refused_writes: Annotated[int, Field(ge=0), WHOLE] | None = None
    max_stopped: Annotated[int, Field(ge=0), WHOLE] | None = None


class ApprovalsBody(WireModel):
    """A passing promotion waits for a reviewer."""

    role: Role | None = None
    separate_approver: bool | None = None


class GatePolicySpecBody(WireModel):
    """What a promotion must show; every part optional, unknown keys refused."""

    comparison: ComparisonBody | None = None
    evidence: EvidenceBody | None = None
    metrics: list[MetricBody] | None = None
    replay: ReplayLimitsBody | None = None
    approvals: ApprovalsBody | None = None
    only_restricted_classes: bool | None = None

    @model_validator(mode="after")
    def _once_each(self) -> GatePolicySpecBody:
        names = [m.name for m in self.metrics or []]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{', '.join(twice)} is gated twice")
        return self

    def record(self) -> GateSpec:
        """The spec as the services take it."""
        c, e, r, a = self.comparison, self.evidence, self.replay, self.approvals
        suite = (
            None if c is None or c.suite is None else SuiteRequirement(c.suite.id, c.suite.version)
        )
        return GateSpec(
            comparison=None if c is None else ComparisonRequirement(c.max_age_hours, suite),
            evidence=None if e is None else EvidenceRequirement(e.min_cases, e.min_weight),
            metrics=None
            if self.metrics is None
            else tuple(
                MetricRequirement(m.name, m.k, m.min_candidate, m.max_drop) for m in self.metrics
            ),
            replay=None
            if r is None
            else ReplayLimits(r.max_diverged, r.max_errors, r.max_refused_writes, r.max_stopped),
            approvals=None if a is None else ApprovalRequirement(a.role, a.separate_approver),
            only_restricted_classes=self.only_restricted_classes,
        )


class PublishGatePolicyBody(WireModel):
    """The body of `gatePolicies.publish`."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,127}$")
    version: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    agent_id: str = Field(min_length=1)
    scope: ScopeBody
    spec: GatePolicySpecBody
    description: str | None = Field(default=None, min_length=1, max_length=2000)


class GatePolicyAnswer(WireModel):
    """A gate policy version."""

    id: str
    version: str
    agent_id: str
    scope: ScopeAnswer
    spec: GatePolicySpecBody
    description: str | None = None
    created_at: str
    unregistered_at: str | None = None


class GatePolicyPage(WirePage[GatePolicyAnswer]):
    """A page of gate policies."""


class GatePolicyQuery(ScopeQuery):
    """Filters and paging of `gatePolicies.list`."""

    limit: int | None = None
    cursor: str | None = None
    agent_id: str | None = None


def policy_answer(policy: GatePolicy) -> GatePolicyAnswer:
    """A policy version as the wire shows it (its spec with only the parts it has)."""
    shown: dict[str, object] = {
        "id": policy.id,
        "version": policy.version,
        "agent_id": policy.agent_id,
        "scope": scope_answer(policy.scope),
        "spec": GatePolicySpecBody.model_validate(plain(policy.spec)),
        "created_at": policy.created_at,
    }
    if policy.description is not None:
        shown["description"] = policy.description
    if policy.unregistered_at is not None:
        shown["unregistered_at"] = policy.unregistered_at
    return GatePolicyAnswer.model_validate(shown)


def publish(call: Call[PublishGatePolicyBody, NoQuery]) -> Response:
    body = call.body
    policy, created = gate_policies.publish(
        call.ctx,
        body.id,
        body.version,
        body.agent_id,
        body.scope.record(),
        body.spec.record(),
        body.description,
    )
    return json_response(shape(GatePolicyAnswer, policy_answer(policy)), 201 if created else 200)


def list_policies(call: Call[NoBody, GatePolicyQuery]) -> Page[GatePolicyAnswer]:
    q = call.query
    page = gate_policies.list_page(
        call.ctx, agent_id=q.agent_id, scope=q.scope(), limit=q.limit, cursor=q.cursor
    )
    return page.map(policy_answer)


def get(call: Call[NoBody, NoQuery]) -> GatePolicyAnswer:
    return policy_answer(gate_policies.get(call.ctx, call.path["policyId"]))


def versions(call: Call[NoBody, NoQuery]) -> Page[GatePolicyAnswer]:
    found = gate_policies.versions(call.ctx, call.path["policyId"])
    return Page([policy_answer(p) for p in found], False)


def get_version(call: Call[NoBody, NoQuery]) -> GatePolicyAnswer:
    path = call.path
    return policy_answer(gate_policies.get_version(call.ctx, path["policyId"], path["version"]))


def unregister(call: Call[NoBody, NoQuery]) -> GatePolicyAnswer:
    path = call.path
    return policy_answer(gate_policies.unregister(call.ctx, path["policyId"], path["version"]))


def reinstate(call: Call[NoBody, NoQuery]) -> GatePolicyAnswer:
    path = call.path
    return policy_answer(gate_policies.reinstate(call.ctx, path["policyId"], path["version"]))


ONE = "/v1/gate-policies/{policyId}"
VERSION = ONE + "/versions/{version}"
ENDPOINTS = [
    Endpoint("POST", "/v1/gate-policies", "gatePolicies.publish", publish,
             "Publish a gate policy, or a new version of one (admin).",
             body=PublishGatePolicyBody, response=GatePolicyAnswer, status=201, also=(200,),
             errors=(400, 401, 403, 404, 409, 413)),
    Endpoint("GET", "/v1/gate-policies", "gatePolicies.list", list_policies,
             "Each gate policy's latest active version.", query=GatePolicyQuery,
             response=GatePolicyPage, errors=(400, 401)),
    Endpoint("GET", ONE, "gatePolicies.get", get, "A gate policy's latest active version.",
             response=GatePolicyAnswer, errors=(401, 404)),
    Endpoint("GET", ONE + "/versions", "gatePolicies.versions.list", versions,
             "Every version of a gate policy, oldest first, unregistered ones too.",
             response=GatePolicyPage, errors=(401, 404)),
    Endpoint("GET", VERSION, "gatePolicies.versions.get", get_version,
             "One version of a gate policy.", response=GatePolicyAnswer, errors=(401, 404)),
    Endpoint("POST", VERSION + "/unregister", "gatePolicies.versions.unregister", unregister,
             "Stop a gate policy version applying (admin).", response=GatePolicyAnswer,
             errors=(401, 403, 404)),
    Endpoint("POST", VERSION + "/reinstate", "gatePolicies.versions.reinstate", reinstate,
             "Make an unregistered gate policy version apply again (admin).",
             response=GatePolicyAnswer, errors=(401, 403, 404, 409)),
]  # fmt: skip
