"""The wire shapes releases share: a live scope (in a body, in a query, in an answer), a
gate check, and a promotion as the history shows it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from ..domain.errors import BadInput
from ..domain.gate_specs import GateCheck
from ..domain.json import JSONObject
from ..domain.live import LiveScope
from ..domain.releases import Promotion
from ..domain.segments import Segment
from .runs import ScopeSegment
from .wire import OpenModel, WireModel, WirePage, wire_number

UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
Uuid = Annotated[str, Field(pattern=UUID_PATTERN)]
Step = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}:.{1,256}$")]
"""One step of a segment path in a query: `key:value` (`company:acme`)."""


class TenantScope(WireModel):
    """The agent's default for the whole tenant."""

    kind: Literal["tenant"]

    def record(self) -> LiveScope:
        """The scope as the services take it."""
        return LiveScope("tenant")


class OrgScope(WireModel):
    """An org's projects (kindgi dev has no orgs: any org is not found)."""

    kind: Literal["org"]
    org_id: Uuid

    def record(self) -> LiveScope:
        """The scope as the services take it."""
        return LiveScope("org", org_id=self.org_id)


class ProjectScope(WireModel):
    """One project."""

    kind: Literal["project"]
    project_id: Uuid

    def record(self) -> LiveScope:
        """The scope as the services take it."""
        return LiveScope("project", project_id=self.project_id)


class SegmentScope(WireModel):
    """A segment path in a project: it covers every run whose path starts with it."""

    kind: Literal["segment"]
    project_id: Uuid
    path: list[ScopeSegment] = Field(min_length=1, max_length=8)

    def record(self) -> LiveScope:
        """The scope as the services take it."""
        return LiveScope(
            "segment", project_id=self.project_id, path=tuple(s.record() for s in self.path)
        )


ScopeBody = Annotated[
    TenantScope | OrgScope | ProjectScope | SegmentScope, Field(discriminator="kind")
]
"""A live scope in a request body."""


class ScopeAnswer(WireModel):
    """A live scope in an answer: `kind`, with `orgId`, `projectId` and `path` as it has them."""

    kind: str
    org_id: str | None = None
    project_id: str | None = None
    path: list[ScopeSegment] | None = None


def segments_of(values: list[str]) -> tuple[Segment, ...]:
    """A `segment=key:value` query, repeated coarse to fine; 400 for a step without `:`."""
    steps = []
    for value in values:
        key, colon, rest = value.partition(":")
        if not colon or not key or not rest:
            raise BadInput(f"segment: {value!r} is not key:value (e.g. company:acme).")
        steps.append(ScopeSegment(key=key, value=rest).record())
    return tuple(steps)


class ScopeQuery(WireModel):
    """`scopeKind` with `scopeId` (and `segment` for a segment path) narrowing a list."""

    scope_kind: Literal["tenant", "org", "project", "segment"] | None = None
    scope_id: str | None = Field(default=None, pattern=UUID_PATTERN)
    segment: list[Step] = Field(default_factory=list, max_length=8)

    @field_validator("segment", mode="before")
    @classmethod
    def _many(cls, value: object) -> list[object]:
        return value if isinstance(value, list) else [value]

    def scope(self) -> LiveScope | None:
        """The scope asked for, or None; 400 when its parts don't go together."""
        kind = self.scope_kind
        if kind is None:
            if self.scope_id is not None or self.segment:
                raise BadInput("scopeId and segment need scopeKind.")
            return None
        if kind == "tenant":
            return LiveScope("tenant")
        if self.scope_id is None:
            raise BadInput(f"scopeKind {kind} needs scopeId: an {kind} id (a UUID).")
        if kind == "org":
            return LiveScope("org", org_id=self.scope_id)
        path = segments_of(self.segment)
        if kind == "project":
            return LiveScope("project", project_id=self.scope_id)
        if not path:
            raise BadInput("scopeKind segment needs a segment path: segment=key:value.")
        return LiveScope("segment", project_id=self.scope_id, path=path)


def scope_answer(scope: LiveScope) -> ScopeAnswer:
    """A scope as an answer shows it."""
    shown: dict[str, object] = {"kind": scope.kind}
    if scope.org_id is not None:
        shown["org_id"] = scope.org_id
    if scope.project_id is not None:
        shown["project_id"] = scope.project_id
    if scope.path is not None:
        shown["path"] = [ScopeSegment(key=s.key, value=s.value) for s in scope.path]
    return ScopeAnswer.model_validate(shown)


class GateCheckAnswer(WireModel):
    """One of a gate's checks: its stable name, whether it passed, and what it found."""

    name: str
    passed: bool
    message: str
    value: int | float | str | None = None
    threshold: int | float | str | None = None


def check_answer(check: GateCheck) -> GateCheckAnswer:
    """A check as an answer shows it (value and threshold when it has them)."""
    shown: JSONObject = {"name": check.name, "passed": check.passed, "message": check.message}
    if check.value is not None:
        shown["value"] = wire_number(check.value) if isinstance(check.value, float) else check.value
    if check.threshold is not None:
        threshold = check.threshold
        shown["threshold"] = wire_number(threshold) if isinstance(threshold, float) else threshold
    return GateCheckAnswer.model_validate(shown)


class PolicyRefAnswer(WireModel):
    """A gate policy version."""

    id: str
    version: str


class RequestedByAnswer(WireModel):
    """Who asked for a change."""

    kind: str
    id: str


class PromotionAnswer(OpenModel):
    """One change of a scope's live version, as the history keeps it."""

    id: str
    agent_id: str
    scope: ScopeAnswer
    action: str
    from_version: str | None
    to_version: str | None
    requested_by: RequestedByAnswer
    reason: str | None = None
    eval_run_id: str | None = None
    created_at: str
    status: str | None = None
    policy: PolicyRefAnswer | None = None
    checks: list[GateCheckAnswer] | None = None
    approval_id: str | None = None
    resolved_at: str | None = None


class PromotionPage(WirePage[PromotionAnswer]):
    """A page of an agent's history, newest first."""


def promotion_answer(row: Promotion) -> PromotionAnswer:
    """A history row: its before and after always (null when none); a promote row's status,
    policy (null when none applied) and checks; the rest when it has them."""
    shown: dict[str, object] = {
        "id": row.id,
        "agent_id": row.agent_id,
        "scope": scope_answer(row.scope),
        "action": row.action,
        "from_version": row.from_version,
        "to_version": row.to_version,
        "requested_by": RequestedByAnswer(kind=row.requested_by.kind, id=row.requested_by.id),
        "created_at": row.created_at,
    }
    if row.action == "promote":
        shown["status"] = row.status
        shown["policy"] = None if row.policy is None else PolicyRefAnswer(**vars(row.policy))
        shown["checks"] = [check_answer(c) for c in row.checks or []]
    optional = {
        "reason": row.reason,
        "eval_run_id": row.eval_run_id,
        "approval_id": row.approval_id,
        "resolved_at": row.resolved_at,
    }
    shown.update({k: v for k, v in optional.items() if v is not None})
    return PromotionAnswer.model_validate(shown)
