"""`/v1/agents/{agentId}/…` releases: the version a run would use, the live pins, the
gate policy for a scope, checking and making promotions, rollback, unpin and the history."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from starlette.responses import Response

from ..domain.errors import BadInput
from ..domain.paging import Page
from ..domain.releases import PENDING
from ..services import gate_policies, live, projects, promotions, rollbacks
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .gate_policies import GatePolicyAnswer, policy_answer
from .release_wire import (
    UUID_PATTERN,
    GateCheckAnswer,
    PolicyRefAnswer,
    PromotionAnswer,
    PromotionPage,
    ScopeAnswer,
    ScopeBody,
    ScopeQuery,
    Step,
    check_answer,
    promotion_answer,
    scope_answer,
    segments_of,
)
from .responses import json_response
from .routing import shape
from .wire import WireModel

Reason = str | None


class LiveQuery(WireModel):
    """The run's project and segment path (`segment=key:value`, repeated coarse to fine)."""

    project_id: str | None = Field(default=None, pattern=UUID_PATTERN)
    segment: list[Step] = Field(default_factory=list, max_length=8)

    @field_validator("segment", mode="before")
    @classmethod
    def _many(cls, value: object) -> list[object]:
        return value if isinstance(value, list) else [value]


class LiveResolution(WireModel):
    """The version a run would use, and why: a live pin (with its scope) or the latest."""

    agent_id: str
    version: str
    via: Literal["live", "latest"]
    live_scope: ScopeAnswer | None = None


class LivePinAnswer(WireModel):
    """A version pinned live for a scope."""

    agent_id: str
    scope: ScopeAnswer
    version: str
    promotion_id: str
    set_at: str


class LivePinList(WireModel):
    """Every scope with a version pinned."""

    data: list[LivePinAnswer]


class PromoteBody(WireModel):
    """The body of `agents.promotions.create` and `.check`."""

    version: str = Field(min_length=1)
    scope: ScopeBody
    reason: Reason = Field(default=None, min_length=1, max_length=2000)
    eval_run_id: str | None = Field(default=None, min_length=1)

    def record(self) -> promotions.Asked:
        """The promotion as the services take it."""
        return promotions.Asked(self.version, self.scope.record(), self.reason, self.eval_run_id)


class RollbackBody(WireModel):
    """The body of `agents.live.rollback`."""

    scope: ScopeBody
    to_version: str | None = Field(default=None, min_length=1)
    reason: Reason = Field(default=None, min_length=1, max_length=2000)


class UnpinBody(WireModel):
    """The body of `agents.live.unpin`."""

    scope: ScopeBody
    reason: Reason = Field(default=None, min_length=1, max_length=2000)


class GateApprovalAnswer(WireModel):
    """The approval a passing promotion waits for."""

    role: str
    count: int
    separate_approver: bool


class PromotionCheck(WireModel):
    """What the gate would say; nothing is recorded."""

    outcome: str
    policy: PolicyRefAnswer | None
    checks: list[GateCheckAnswer]
    approval: GateApprovalAnswer | None = None


class GatePolicyResolution(WireModel):
    """The policy that gates a promotion for the scope; null when none does."""

    policy: GatePolicyAnswer | None


class HistoryQuery(ScopeQuery):
    """Paging and the scope of `agents.promotions.list`."""

    limit: int | None = None
    cursor: str | None = None


async def resolve(call: Call[NoBody, LiveQuery]) -> LiveResolution:
    q = call.query
    segments = segments_of(q.segment)
    if segments and q.project_id is None:
        raise BadInput("A segment path needs a projectId.")
    if q.project_id is not None:
        projects.get(call.ctx, q.project_id)
    found = live.for_run(call.ctx, call.path["agentId"], q.project_id, segments)
    scope = None if found.pin is None else scope_answer(found.pin.scope)
    return LiveResolution(
        agent_id=found.agent_id,
        version=found.version,
        via="live" if found.pin else "latest",
        **({} if scope is None else {"live_scope": scope}),
    )


async def list_pins(call: Call[NoBody, NoQuery]) -> LivePinList:
    pins = live.pins(call.ctx, call.path["agentId"])
    return LivePinList(
        data=[
            LivePinAnswer(agent_id=p.agent_id, scope=scope_answer(p.scope), version=p.version,
                          promotion_id=p.promotion_id, set_at=p.set_at)
            for p in pins
        ]
    )  # fmt: skip


def check(call: Call[PromoteBody, NoQuery]) -> PromotionCheck:
    found = promotions.check(call.ctx, call.path["agentId"], call.body.record())
    approval = found.result.approval
    answer = PromotionCheck(
        outcome=found.result.outcome,
        policy=None if found.policy_ref is None else PolicyRefAnswer(**vars(found.policy_ref)),
        checks=[check_answer(c) for c in found.result.checks],
    )
    if approval is not None and not found.pin_in_place:
        answer.approval = GateApprovalAnswer(
            role=approval.role, count=approval.count, separate_approver=approval.separate_approver
        )
    return answer


def promote(call: Call[PromoteBody, NoQuery]) -> Response:
    row = promotions.promote(call.ctx, call.path["agentId"], call.body.record())
    status = 202 if row.status == PENDING else 201
    return json_response(shape(PromotionAnswer, promotion_answer(row)), status)


async def gate_policy(call: Call[NoBody, ScopeQuery]) -> GatePolicyResolution:
    scope = call.query.scope()
    if scope is None:
        raise BadInput("scopeKind is required: the scope a promotion would be for.")
    found = gate_policies.resolve(call.ctx, call.path["agentId"], scope)
    return GatePolicyResolution(policy=None if found is None else policy_answer(found))


async def history(call: Call[NoBody, HistoryQuery]) -> Page[PromotionAnswer]:
    q = call.query
    page = promotions.list_page(
        call.ctx, call.path["agentId"], scope=q.scope(), limit=q.limit, cursor=q.cursor
    )
    return page.map(promotion_answer)


async def get(call: Call[NoBody, NoQuery]) -> PromotionAnswer:
    path = call.path
    return promotion_answer(promotions.get(call.ctx, path["agentId"], path["promotionId"]))


def rollback(call: Call[RollbackBody, NoQuery]) -> PromotionAnswer:
    body = call.body
    row = rollbacks.rollback(
        call.ctx, call.path["agentId"], body.scope.record(), body.to_version, body.reason
    )
    return promotion_answer(row)


def unpin(call: Call[UnpinBody, NoQuery]) -> PromotionAnswer:
    body = call.body
    return promotion_answer(
        rollbacks.unpin(call.ctx, call.path["agentId"], body.scope.record(), body.reason)
    )


AGENT = "/v1/agents/{agentId}"
ENDPOINTS = [
    Endpoint("GET", AGENT + "/live", "agents.live.resolve", resolve,
             "The version a run of the agent would use for a project and segment path.",
             query=LiveQuery, response=LiveResolution, errors=(400, 401, 404)),
    Endpoint("GET", AGENT + "/live-versions", "agents.live.list", list_pins,
             "Every scope with a version of the agent pinned live.", response=LivePinList,
             errors=(401,)),
    Endpoint("POST", AGENT + "/promotions/check", "agents.promotions.check", check,
             "What promoting would do, with nothing recorded.", body=PromoteBody,
             response=PromotionCheck, errors=(400, 401, 404, 413)),
    Endpoint("POST", AGENT + "/promotions", "agents.promotions.create", promote,
             "Make a version live for a scope, through its gate.", body=PromoteBody,
             response=PromotionAnswer, status=201, also=(202,),
             errors=(400, 401, 404, 409, 413, 422), keeps_refusals=True),
    Endpoint("GET", AGENT + "/gate-policy", "agents.gatePolicy.resolve", gate_policy,
             "The gate policy a promotion for the scope is checked against.",
             query=ScopeQuery, response=GatePolicyResolution, errors=(400, 401)),
    Endpoint("GET", AGENT + "/promotions", "agents.promotions.list", history,
             "The agent's promotions, rollbacks and unpins, newest first.", query=HistoryQuery,
             response=PromotionPage, errors=(400, 401)),
    Endpoint("GET", AGENT + "/promotions/{promotionId}", "agents.promotions.get", get,
             "One promotion of the agent.", response=PromotionAnswer, errors=(401, 404)),
    Endpoint("POST", AGENT + "/live/rollback", "agents.live.rollback", rollback,
             "Put a scope back on its previous live version, or the one named.",
             body=RollbackBody, response=PromotionAnswer, errors=(400, 401, 404, 409, 413)),
    Endpoint("POST", AGENT + "/live/unpin", "agents.live.unpin", unpin,
             "Remove a scope's own live version.", body=UnpinBody, response=PromotionAnswer,
             errors=(400, 401, 404, 409, 413)),
]  # fmt: skip
