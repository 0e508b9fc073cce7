"""Approvals: something waits for a reviewer's decision (a promotion now; a tool call of a
live run is the same kind of thing), and who may decide it.

A reviewer's role ranks standard < senior < admin; a reviewer sees and decides approvals
whose required role is at most theirs. With `separate_approver`, whoever asked may not
approve (four eyes).
"""

from __future__ import annotations

from dataclasses import dataclass

from .gate_specs import ROLES
from .json import JSONObject

OPEN = ("pending", "assigned", "in_review")
"""The statuses of an approval still waiting for a decision."""
_DECIDED = {"approve": "approved", "reject": "rejected", "withdraw": "withdrawn"}


@dataclass(frozen=True)
class Decision:
    """A reviewer's decision on an approval, with the role they had when they made it."""

    id: str
    decision: str
    reviewer_id: str
    reviewer_role_at_decision: str
    decided_at: str
    decided_by: str
    rationale: str | None = None


@dataclass(frozen=True)
class GateDecision:
    """A reviewer's decision on a live run's held tool call, as its wait and journal keep it."""

    approval_id: str
    decision: str
    decided_by: str
    rationale: str | None = None

    def journal(self) -> JSONObject:
        """The decision as the call's record keeps it."""
        found: JSONObject = {
            "approvalId": self.approval_id,
            "decision": self.decision,
            "decidedBy": self.decided_by,
        }
        return found if self.rationale is None else {**found, "rationale": self.rationale}


@dataclass(frozen=True)
class Approval:
    """Something that waits for a reviewer: what (`subject_kind`, `subject_ref`), who may
    decide it (`required_role`, `separate_approver`), who asked, and its decision once made."""

    id: str
    tenant_id: str
    subject_kind: str
    subject_ref: JSONObject
    required_role: str
    status: str
    separate_approver: bool
    created_at: str
    updated_at: str
    project_id: str | None = None
    title: str | None = None
    description: str | None = None
    context: JSONObject | None = None
    requested_by: str | None = None
    decided_at: str | None = None
    decision: Decision | None = None
    escalated_from: str | None = None
    escalated_to: str | None = None
    wait_token_id: str | None = None
    """The waitpoint a run waits at for this approval (a held tool call's)."""
    run_id: str | None = None
    """The run whose waitpoint it is (`provenanceRef.runId` on the wire)."""
    expires_at: str | None = None
    withdrawn_because: str | None = None

    @property
    def is_open(self) -> bool:
        """Whether it still waits for a decision."""
        return self.status in OPEN


@dataclass(frozen=True)
class Reviewer:
    """A row of the reviewer roster: a user who decides approvals up to a role."""

    id: str
    tenant_id: str
    user_id: str
    role: str
    created_at: str
    display_name: str | None = None
    deactivated_at: str | None = None


def rank(role: str) -> int:
    """A role's place in standard < senior < admin (an unknown role ranks below all)."""
    return ROLES.index(role) if role in ROLES else -1


def may_see(reviewer_role: str | None, approval: Approval) -> bool:
    """Whether a reviewer of this role sees (and may decide) the approval."""
    return reviewer_role is not None and rank(approval.required_role) <= rank(reviewer_role)


def status_after(decision: str) -> str:
    """The status a decision leaves an approval in (`escalate` hands it up, to admin)."""
    return _DECIDED.get(decision, "escalated")


def escalated_role(role: str) -> str:
    """The role an escalated approval needs next: one rank up, admin at the top."""
    return ROLES[min(rank(role) + 1, len(ROLES) - 1)]
