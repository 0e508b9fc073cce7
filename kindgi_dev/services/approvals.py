"""Approvals: open one for a subject that waits (a promotion; a live run's tool call is the
same kind of thing), list and read them as a reviewer, record a decision; and the reviewer
roster. What a decision does to its subject is `approval_subjects`' business."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..domain.approvals import (
    Approval,
    Decision,
    Reviewer,
    escalated_role,
    may_see,
    rank,
    status_after,
)
from ..domain.errors import Conflict, Forbidden, NotFound
from ..domain.gate_specs import ROLES
from ..domain.paging import Page, clamp_limit, decode_cursor, make_page, whole_after
from ..domain.time import now_iso
from ..store import approvals as store
from ..store.approvals import ApprovalFilter
from . import identity
from .context import Context


def open_approval(
    ctx: Context,
    subject_kind: str,
    subject_ref: dict[str, Any],
    *,
    required_role: str,
    separate_approver: bool,
    project_id: str | None = None,
    title: str | None = None,
    description: str | None = None,
    context: dict[str, Any] | None = None,
    wait: tuple[str, str, str | None] | None = None,
) -> Approval:
    """Open a pending approval asked for by the caller (inside the caller's transaction);
    `wait` links it to a run's waitpoint: (wait token, run id, expiry)."""
    now = now_iso()
    approval = Approval(
        id=str(uuid.uuid4()),
        tenant_id=ctx.tenant_id,
        subject_kind=subject_kind,
        subject_ref=subject_ref,
        required_role=required_role,
        status="pending",
        separate_approver=separate_approver,
        created_at=now,
        updated_at=now,
        project_id=project_id,
        title=title,
        description=description,
        context=context,
        requested_by=f"{ctx.caller.kind}:{ctx.caller.id}",
        wait_token_id=None if wait is None else wait[0],
        run_id=None if wait is None else wait[1],
        expires_at=None if wait is None else wait[2],
    )
    store.insert(ctx.db, approval)
    return approval


def roster_role(ctx: Context) -> str | None:
    """The role the reviewer roster gives the caller's user (None: not on it)."""
    row = store.reviewer_of_user(ctx.db, ctx.tenant_id, ctx.caller.id)
    return row.role if row is not None and row.deactivated_at is None else None


def reviewer_role(ctx: Context) -> str | None:
    """The caller's reviewer role: its roster row's, else `admin` for the tenant's admin (the
    instance's own token), else None (not a reviewer)."""
    return roster_role(ctx) or ("admin" if ctx.caller.role == "admin" else None)


def _reviewer_role(ctx: Context) -> str:
    role = reviewer_role(ctx)
    if role is None:
        raise Forbidden(
            "Approvals are for reviewers: this token's user is not on the reviewer roster."
        )
    return role


def get(ctx: Context, approval_id: str) -> Approval:
    """One approval the caller's role may see; 404 `approval-not-found` otherwise."""
    role = _reviewer_role(ctx)
    found = store.get(ctx.db, ctx.tenant_id, approval_id)
    if found is None or not may_see(role, found):
        raise NotFound("approval", approval_id)
    return found


@dataclass(frozen=True)
class ApprovalQuery:
    """What `approvals.list` asks for."""

    statuses: Sequence[str] = ()
    project_id: str | None = None
    required_role: str | None = None
    decided_by_me: bool = False
    created_after: str | None = None
    order: str = "desc"
    run_id: str | None = None
    wait_token_ids: Sequence[str] = ()


def list_page(
    ctx: Context, query: ApprovalQuery, *, limit: int | None, cursor: str | None
) -> Page[Approval]:
    """The approvals the caller's role may see, newest first (or oldest, `asc`)."""
    role = _reviewer_role(ctx)
    roles = [r for r in ROLES if rank(r) <= rank(role)]
    if query.required_role is not None:
        roles = [r for r in roles if r == query.required_role]
    mine = store.reviewer_of_user(ctx.db, ctx.tenant_id, ctx.caller.id)
    filters = ApprovalFilter(
        statuses=query.statuses,
        roles=roles or ["none"],
        project_id=query.project_id,
        decided_by_reviewer=(mine.id if mine else "none") if query.decided_by_me else None,
        created_after=query.created_after,
        newest_first=query.order != "asc",
        run_id=query.run_id,
        wait_token_ids=query.wait_token_ids,
    )
    size = clamp_limit(limit)
    after = whole_after(cursor)
    rows = store.list_page(ctx.db, ctx.tenant_id, filters, limit=size, after=after)
    page = make_page(rows, size, lambda row: [row[0]])
    return page.map(lambda row: row[1])


@dataclass(frozen=True)
class Decided:
    """A recorded decision, the approval as it is now, and the one it was escalated to."""

    approval: Approval
    decision: Decision
    next_approval: Approval | None = None


def decide(ctx: Context, approval_id: str, decision: str, rationale: str | None) -> Decided:
    """Record the caller's decision on an open approval (inside the caller's transaction):
    409 when it is decided already, 403 `separate-approver-required` when its asker would
    approve it themself; `escalate` opens the same approval one role up."""
    approval = get(ctx, approval_id)
    if not approval.is_open:
        raise Conflict(
            f"Approval {approval_id} is {approval.status} already.",
            code="approval-already-decided",
            approvalId=approval_id,
        )
    me = f"{ctx.caller.kind}:{ctx.caller.id}"
    if decision == "approve" and approval.separate_approver and approval.requested_by == me:
        raise Forbidden(
            "Whoever asked for this may not approve it: another reviewer decides (locally, "
            "with a key from `kindgi approvals reviewer-token`).",
            code="separate-approver-required",
            approvalId=approval_id,
        )
    reviewer = _decider(ctx)
    now = now_iso()
    record = Decision(str(uuid.uuid4()), decision, reviewer.id, reviewer.role, now, me, rationale)
    status = status_after(decision)
    upcoming = None
    if status == "escalated":
        upcoming = replace(
            approval,
            id=str(uuid.uuid4()),
            required_role=escalated_role(approval.required_role),
            created_at=now,
            updated_at=now,
            escalated_from=approval.id,
        )
        store.insert(ctx.db, upcoming)
    decided = replace(
        approval,
        status=status,
        updated_at=now,
        decided_at=now,
        decision=record,
        escalated_to=None if upcoming is None else upcoming.id,
    )
    store.update(ctx.db, decided)
    return Decided(decided, record, upcoming)


def _decider(ctx: Context) -> Reviewer:
    """The caller's roster row; the tenant's admin gets one (role admin) when it first decides."""
    row = store.reviewer_of_user(ctx.db, ctx.tenant_id, ctx.caller.id)
    if row is not None and row.deactivated_at is None:
        return row
    if ctx.caller.role != "admin":
        raise Forbidden("No reviewer is registered for this token's user.")
    return register(ctx, ctx.caller.id, "admin", "kindgi dev (the instance's user)")


def register(ctx: Context, user_id: str, role: str, display_name: str | None) -> Reviewer:
    """Put a user on the roster, or change their role and name (active again if they left)."""
    identity.require_admin(ctx, "Registering a reviewer")
    found = store.reviewer_of_user(ctx.db, ctx.tenant_id, user_id)
    row = Reviewer(
        found.id if found else str(uuid.uuid4()),
        ctx.tenant_id,
        user_id,
        role,
        found.created_at if found else now_iso(),
        display_name,
    )
    store.save_reviewer(ctx.db, row)
    return row


def get_reviewer(ctx: Context, reviewer_id: str) -> Reviewer:
    """One roster row; 404 `reviewer-not-found`. Only reviewers read the roster."""
    _reviewer_role(ctx)
    found = store.reviewer(ctx.db, ctx.tenant_id, reviewer_id)
    if found is None:
        raise NotFound("reviewer", reviewer_id)
    return found


def reviewers_page(
    ctx: Context, *, role: str | None, limit: int | None, cursor: str | None
) -> Page[Reviewer]:
    """The roster, oldest first; only reviewers read it."""
    _reviewer_role(ctx)
    size = clamp_limit(limit)
    rows = store.reviewers_page(
        ctx.db, ctx.tenant_id, role=role, limit=size, after=decode_cursor(cursor)
    )
    return make_page(rows, size, lambda row: [row.created_at, row.id])


def unregister_reviewer(ctx: Context, reviewer_id: str) -> Reviewer:
    """Take a reviewer off the roster (kept, with `deactivatedAt`, so decisions still say who)."""
    identity.require_admin(ctx, "Unregistering a reviewer")
    found = get_reviewer(ctx, reviewer_id)
    gone = replace(found, deactivated_at=found.deactivated_at or now_iso())
    store.save_reviewer(ctx.db, gone)
    return gone
