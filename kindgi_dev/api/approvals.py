"""`/v1/approvals`: list, get and complete approvals as a reviewer; the reviewer roster;
and `/v1/tokens`, minting a key that acts for another user (a second reviewer, locally)."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field, field_validator
from starlette.responses import Response

from ..domain.approvals import Approval, Decision, Reviewer
from ..domain.errors import BadInput
from ..domain.paging import Page
from ..services import approval_subjects, approvals, identity, run_waits
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .release_wire import UUID_PATTERN
from .responses import json_response
from .routing import shape
from .wire import JsonAny, OpenModel, OpenObject, WireModel, WirePage, WireTime

Role = Literal["standard", "senior", "admin"]
Status = Literal[
    "pending", "assigned", "in_review", "approved", "rejected", "escalated", "expired", "withdrawn"
]


class DecisionRecord(WireModel):
    """The reviewer's decision, on the approval."""

    decision: str
    decided_by: str
    reviewer_id: str
    reviewer_role_at_decision: str
    decided_at: str
    rationale: str | None = None


class ProvenanceRef(WireModel):
    """The run an approval's waitpoint belongs to."""

    run_id: str


class ApprovalAnswer(OpenModel):
    """An approval as the client reads it."""

    id: str
    tenant_id: str
    project_id: str | None = None
    subject_kind: str
    subject_ref: OpenObject
    required_role: str
    status: str
    title: str | None = None
    description: str | None = None
    context: OpenObject | None = None
    created_at: str
    updated_at: str
    decided_at: str | None = None
    decision: DecisionRecord | None = None
    requested_by: str | None = None
    separate_approver: bool
    escalated_from: str | None = None
    escalated_to: str | None = None
    wait_token_id: str | None = None
    provenance_ref: ProvenanceRef | None = None
    expires_at: str | None = None
    withdrawn_because: str | None = None


class ApprovalPage(WirePage[ApprovalAnswer]):
    """A page of approvals, in the order asked for; it echoes that `order` and the
    `decidedBy` filter."""

    order: str
    decided_by: str | None = None


class ApprovalListQuery(WireModel):
    """Filters of `approvals.list` (`status` repeated or comma-separated)."""

    limit: int | None = None
    cursor: str | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = None
    status: list[Status] = Field(default_factory=list)
    assigned_to: Literal["me"] | None = None
    decided_by: Literal["me"] | None = None
    order: Literal["asc", "desc"] = "desc"
    required_role: Role | None = None
    created_after: WireTime | None = None
    wait_token_id: list[str] = Field(default_factory=list)
    run_id: str | None = None
    include_descendants: bool = False

    @field_validator("status", "wait_token_id", mode="before")
    @classmethod
    def _split(cls, value: object) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [part for v in values for part in str(v).split(",") if part]


class CompleteBody(WireModel):
    """A reviewer's decision, and why."""

    decision: Literal["approve", "reject", "escalate", "withdraw"]
    rationale: str | None = Field(default=None, max_length=4000)
    value: JsonAny = None


class ReviewDecisionAnswer(WireModel):
    """The decision just recorded."""

    id: str
    approval_id: str
    reviewer_id: str
    decision: str
    rationale: str | None = None
    reviewer_role_at_decision: str
    decided_at: str


class Resume(WireModel):
    """How the run waiting on the approval went on: `ok`, or `failed` with its error."""

    kind: Literal["ok", "failed"]
    code: str | None = None
    message: str | None = None


class CompleteResult(WireModel):
    """A recorded decision, and what it did to the run waiting on it (none for a promotion)."""

    kind: Literal["terminal", "escalated"]
    approval: ApprovalAnswer
    decision: ReviewDecisionAnswer
    next_approval: ApprovalAnswer | None = None
    waitpoint_resolved: bool
    run_status: str | None = None
    resume: Resume | None = None


class ReviewerAnswer(WireModel):
    """A roster row."""

    id: str
    tenant_id: str
    user_id: str
    role: str
    display_name: str | None = None
    created_at: str
    deactivated_at: str | None = None


class ReviewerPage(WirePage[ReviewerAnswer]):
    """A page of the roster."""


class ReviewerQuery(WireModel):
    """Paging of the roster, and its role."""

    limit: int | None = None
    cursor: str | None = None
    role: Role | None = None


class RegisterReviewerBody(WireModel):
    """Put a user on the roster (again: their role and name are replaced)."""

    user_id: str = Field(pattern=UUID_PATTERN)
    role: Role
    display_name: str | None = Field(default=None, min_length=1, max_length=200)


class UnregisteredReviewer(WireModel):
    """A reviewer taken off the roster."""

    reviewer_id: str
    unregistered: Literal[True]


class KeyOwner(WireModel):
    """Whom a key acts for: a person, or a service account (whose runs no person started)."""

    kind: Literal["user", "service-account"]
    id: str = Field(pattern=UUID_PATTERN)


class MintKeyBody(WireModel):
    """The body of `tokens.mint`: a key for a user (a new one when `for` is left out)."""

    for_: KeyOwner | None = Field(default=None, alias="for")
    role: Literal["member", "admin"] | None = None
    label: str | None = Field(default=None, min_length=1, max_length=200)


class MintedKeyAnswer(WireModel):
    """The new key and its text, shown only this once."""

    token_id: str
    principal: KeyOwner
    role: str
    capabilities: list[str]
    label: str | None = None
    created_by: str
    created_at: str
    token: str


def approval_answer(approval: Approval) -> ApprovalAnswer:
    """An approval on the wire, with its decision once made."""
    decided = approval.decision
    record = None
    if decided is not None:
        record = DecisionRecord(
            decision=decided.decision,
            decided_by=decided.decided_by,
            reviewer_id=decided.reviewer_id,
            reviewer_role_at_decision=decided.reviewer_role_at_decision,
            decided_at=decided.decided_at,
            **({} if decided.rationale is None else {"rationale": decided.rationale}),
        )
    fields = {k: v for k, v in vars(approval).items() if v is not None and k != "run_id"}
    if approval.run_id is not None:
        fields["provenance_ref"] = {"run_id": approval.run_id}
    return ApprovalAnswer.model_validate({**fields, "decision": record})


def decision_answer(approval_id: str, decided: Decision) -> ReviewDecisionAnswer:
    """The decision as `approvals.complete` answers it."""
    shown: dict[str, str] = {"rationale": decided.rationale} if decided.rationale else {}
    return ReviewDecisionAnswer(
        id=decided.id,
        approval_id=approval_id,
        reviewer_id=decided.reviewer_id,
        decision=decided.decision,
        reviewer_role_at_decision=decided.reviewer_role_at_decision,
        decided_at=decided.decided_at,
        **shown,
    )


def reviewer_answer(row: Reviewer) -> ReviewerAnswer:
    """A roster row on the wire."""
    return ReviewerAnswer.model_validate({k: v for k, v in vars(row).items() if v is not None})


def list_approvals(call: Call[NoBody, ApprovalListQuery]) -> ApprovalPage:
    q = call.query
    if q.scope_kind == "org":
        return ApprovalPage(data=[], has_more=False, order=q.order)
    query = approvals.ApprovalQuery(
        statuses=q.status,
        project_id=q.scope_id if q.scope_kind == "project" else None,
        required_role=q.required_role,
        decided_by_me=q.decided_by == "me",
        created_after=q.created_after,
        order=q.order,
        run_id=q.run_id,
        wait_token_ids=q.wait_token_id,
    )
    page = approvals.list_page(call.ctx, query, limit=q.limit, cursor=q.cursor)
    if q.assigned_to == "me":  # nothing is assigned to a reviewer locally
        page = Page([], False)
    answer = ApprovalPage(
        data=[approval_answer(a) for a in page.items],
        has_more=page.has_more,
        order=q.order,
        **({} if q.decided_by is None else {"decided_by": "me"}),
    )
    if page.next_cursor:
        answer.next_cursor = page.next_cursor
    return answer


def get(call: Call[NoBody, NoQuery]) -> ApprovalAnswer:
    return approval_answer(approvals.get(call.ctx, call.path["approvalId"]))


async def complete(call: Call[CompleteBody, NoQuery]) -> CompleteResult:
    body = call.body
    if body.value is not None:
        raise BadInput(
            "An approval of a promotion or a held tool call takes a decision and an optional "
            "rationale, not a value."
        )
    decided = approval_subjects.complete(
        call.ctx, call.path["approvalId"], body.decision, body.rationale
    )
    resumed = await run_waits.after_decision(call.ctx, decided)
    result = CompleteResult(
        kind="escalated" if decided.next_approval is not None else "terminal",
        approval=approval_answer(approvals.get(call.ctx, decided.approval.id)),
        decision=decision_answer(decided.approval.id, decided.decision),
        waitpoint_resolved=resumed.waitpoint_resolved,
    )
    if resumed.run_status is not None:
        result.run_status = resumed.run_status
    if resumed.resume is not None:
        result.resume = Resume.model_validate(resumed.resume)
    if decided.next_approval is not None:
        result.next_approval = approval_answer(decided.next_approval)
    return result


def list_reviewers(call: Call[NoBody, ReviewerQuery]) -> Page[ReviewerAnswer]:
    q = call.query
    page = approvals.reviewers_page(call.ctx, role=q.role, limit=q.limit, cursor=q.cursor)
    return page.map(reviewer_answer)


def register(call: Call[RegisterReviewerBody, NoQuery]) -> ReviewerAnswer:
    body = call.body
    return reviewer_answer(approvals.register(call.ctx, body.user_id, body.role, body.display_name))


def get_reviewer(call: Call[NoBody, NoQuery]) -> ReviewerAnswer:
    return reviewer_answer(approvals.get_reviewer(call.ctx, call.path["reviewerId"]))


def unregister(call: Call[NoBody, NoQuery]) -> UnregisteredReviewer:
    gone = approvals.unregister_reviewer(call.ctx, call.path["reviewerId"])
    return UnregisteredReviewer(reviewer_id=gone.id, unregistered=True)


def mint(call: Call[MintKeyBody, NoQuery]) -> Response:
    body = call.body
    user_id = body.for_.id if body.for_ is not None else str(uuid.uuid4())
    owner = "user" if body.for_ is None else body.for_.kind
    kind = "service_account" if owner == "service-account" else "user"
    key = identity.mint_key(call.ctx, user_id, body.role or "member", body.label, kind=kind)
    answer = MintedKeyAnswer(
        token_id=key.id,
        principal=KeyOwner(kind=owner, id=key.user_id),
        role=key.role,
        capabilities=[],
        created_by=key.created_by,
        created_at=key.created_at,
        token=key.token,
        **({} if key.label is None else {"label": key.label}),
    )
    return json_response(shape(MintedKeyAnswer, answer), 201)


ONE = "/v1/approvals/{approvalId}"
REVIEWERS = "/v1/approvals/reviewers"
ENDPOINTS = [
    Endpoint("GET", "/v1/approvals", "approvals.list", list_approvals,
             "The approvals the caller's reviewer role can see.", query=ApprovalListQuery,
             response=ApprovalPage, errors=(400, 401, 403)),
    Endpoint("GET", REVIEWERS, "approvals.reviewers.list", list_reviewers,
             "The reviewer roster.", query=ReviewerQuery, response=ReviewerPage,
             errors=(400, 401, 403)),
    Endpoint("POST", REVIEWERS, "approvals.reviewers.register", register,
             "Put a user on the reviewer roster (admin).", body=RegisterReviewerBody,
             response=ReviewerAnswer, errors=(400, 401, 403, 413)),
    Endpoint("GET", REVIEWERS + "/{reviewerId}", "approvals.reviewers.get", get_reviewer,
             "One reviewer.", response=ReviewerAnswer, errors=(401, 403, 404)),
    Endpoint("POST", REVIEWERS + "/{reviewerId}/unregister", "approvals.reviewers.unregister",
             unregister, "Take a reviewer off the roster (admin).",
             response=UnregisteredReviewer, errors=(401, 403, 404)),
    Endpoint("GET", ONE, "approvals.get", get, "One approval the caller's role can see.",
             response=ApprovalAnswer, errors=(401, 403, 404)),
    Endpoint("POST", ONE + "/complete", "approvals.complete", complete,
             "Decide an approval: approve, reject, escalate or withdraw.", body=CompleteBody,
             response=CompleteResult, errors=(400, 401, 403, 404, 409, 413)),
    Endpoint("POST", "/v1/tokens", "tokens.mint", mint,
             "Mint a key acting for a user (admin): a second person, locally.",
             body=MintKeyBody, body_optional=True, response=MintedKeyAnswer, status=201,
             errors=(400, 401, 403, 413)),
]  # fmt: skip
