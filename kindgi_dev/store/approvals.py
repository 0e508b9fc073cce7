"""Approvals and the reviewer roster."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from ..domain.approvals import Approval, Decision, Reviewer
from ..domain.json import JSONObject
from .db import Database
from .jsoncol import Codec, dump, load_object
from .query import SQLValue, Where, chunks, marks

_COLUMNS = (
    "seq, id, tenant_id, project_id, subject_kind, subject_ref, required_role, status, title, "
    "description, context, requested_by, separate_approver, created_at, updated_at, "
    "decided_at, decision"
)


class _ApprovalDecision(TypedDict):
    """A decision as the `decision` column keeps it (the API's names)."""

    id: str
    decision: str
    reviewerId: str
    reviewerRoleAtDecision: str
    decidedAt: str
    decidedBy: str
    rationale: NotRequired[str | None]


_DECISION = Codec(_ApprovalDecision)


def _decision(text: str | None) -> Decision | None:
    body = _DECISION.load(text)
    if body is None:
        return None
    return Decision(
        body["id"],
        body["decision"],
        body["reviewerId"],
        body["reviewerRoleAtDecision"],
        body["decidedAt"],
        body["decidedBy"],
        body.get("rationale"),
    )


def _decision_json(decision: Decision) -> JSONObject:
    body: JSONObject = {
        "id": decision.id,
        "decision": decision.decision,
        "reviewerId": decision.reviewer_id,
        "reviewerRoleAtDecision": decision.reviewer_role_at_decision,
        "decidedAt": decision.decided_at,
        "decidedBy": decision.decided_by,
    }
    if decision.rationale is not None:
        body["rationale"] = decision.rationale
    return body


def _approval(row: sqlite3.Row) -> Approval:
    context: _Links = _LINKS.load(row["context"]) or {}
    return Approval(
        id=row["id"],
        tenant_id=row["tenant_id"],
        subject_kind=row["subject_kind"],
        subject_ref=load_object(row["subject_ref"]),
        required_role=row["required_role"],
        status=row["status"],
        separate_approver=bool(row["separate_approver"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        project_id=row["project_id"],
        title=row["title"],
        description=row["description"],
        context=context.get("context"),
        requested_by=row["requested_by"],
        decided_at=row["decided_at"],
        decision=_decision(row["decision"]),
        escalated_from=context.get("escalatedFrom"),
        escalated_to=context.get("escalatedTo"),
        wait_token_id=context.get("waitTokenId"),
        run_id=context.get("runId"),
        expires_at=context.get("expiresAt"),
        withdrawn_because=context.get("withdrawnBecause"),
    )


class _Links(TypedDict, total=False):
    """The `context` column: an approval's context and escalation links, where given."""

    context: JSONObject | None
    escalatedFrom: str | None
    escalatedTo: str | None
    waitTokenId: str | None
    runId: str | None
    expiresAt: str | None
    withdrawnBecause: str | None


_LINKS = Codec(_Links)


def _links(approval: Approval) -> str | None:
    """The approval's context and escalation links, kept in one JSON column."""
    body = {
        "context": approval.context,
        "escalatedFrom": approval.escalated_from,
        "escalatedTo": approval.escalated_to,
        "waitTokenId": approval.wait_token_id,
        "runId": approval.run_id,
        "expiresAt": approval.expires_at,
        "withdrawnBecause": approval.withdrawn_because,
    }
    present = {k: v for k, v in body.items() if v is not None}
    return dump(present) if present else None


def insert(db: Database, approval: Approval) -> None:
    """Keep a new approval."""
    db.run(
        "INSERT INTO approvals (id, tenant_id, project_id, subject_kind, subject_ref, "
        "required_role, status, title, description, context, requested_by, separate_approver, "
        "created_at, updated_at, decided_at, decision) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            approval.id,
            approval.tenant_id,
            approval.project_id,
            approval.subject_kind,
            dump(approval.subject_ref),
            approval.required_role,
            approval.status,
            approval.title,
            approval.description,
            _links(approval),
            approval.requested_by,
            1 if approval.separate_approver else 0,
            approval.created_at,
            approval.updated_at,
            approval.decided_at,
            None if approval.decision is None else dump(_decision_json(approval.decision)),
        ),
    )


def update(db: Database, approval: Approval) -> None:
    """Write an approval's status, decision and links as they are now."""
    db.run(
        "UPDATE approvals SET status = ?, updated_at = ?, decided_at = ?, decision = ?, "
        "context = ? WHERE id = ?",
        (
            approval.status,
            approval.updated_at,
            approval.decided_at,
            None if approval.decision is None else dump(_decision_json(approval.decision)),
            _links(approval),
            approval.id,
        ),
    )


def get(db: Database, tenant_id: str, approval_id: str) -> Approval | None:
    """One approval."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM approvals WHERE tenant_id = ? AND id = ?",
        (tenant_id, approval_id),
    )
    return None if row is None else _approval(row)


def erase_held_arguments(db: Database, run_ids: Sequence[str]) -> None:
    """Clear the held calls' arguments (and their hash, which would confirm a guess of them)
    in the subjects of these runs' approvals: an erasure's."""
    for chunk in chunks(run_ids):
        db.run(
            "UPDATE approvals SET subject_ref = json_replace(subject_ref, '$.arguments', NULL, "
            f"'$.argsHash', NULL) WHERE json_extract(context, '$.runId') IN ({marks(chunk)})",
            chunk,
        )


@dataclass(frozen=True)
class ApprovalFilter:
    """What a list of approvals is narrowed to."""

    statuses: Sequence[str] = ()
    roles: Sequence[str] = ()
    project_id: str | None = None
    decided_by_reviewer: str | None = None
    created_after: str | None = None
    newest_first: bool = True
    run_id: str | None = None
    wait_token_ids: Sequence[str] = ()


def list_page(
    db: Database, tenant_id: str, filters: ApprovalFilter, *, limit: int, after: int | None
) -> list[tuple[int, Approval]]:
    """Up to `limit + 1` approvals in order, each with its position."""
    where = Where("tenant_id = ?", tenant_id)
    where.one_of("status", filters.statuses)
    where.one_of("required_role", filters.roles)
    where.equal({"project_id": filters.project_id})
    if filters.decided_by_reviewer is not None:
        where.add("json_extract(decision, '$.reviewerId') = ?", filters.decided_by_reviewer)
    if filters.created_after is not None:
        where.add("created_at > ?", filters.created_after)
    if filters.run_id is not None:
        where.add("json_extract(context, '$.runId') = ?", filters.run_id)
    if filters.wait_token_ids:
        places = marks(filters.wait_token_ids)
        where.add(f"json_extract(context, '$.waitTokenId') IN ({places})", *filters.wait_token_ids)
    order = "DESC" if filters.newest_first else "ASC"
    if after is not None:
        where.add(f"seq {'<' if filters.newest_first else '>'} ?", after)
    rows = db.all(
        f"SELECT {_COLUMNS} FROM approvals WHERE {where} ORDER BY seq {order} LIMIT ?",
        [*where.params, limit + 1],
    )
    return [(row["seq"], _approval(row)) for row in rows]


_REVIEWER = "id, tenant_id, user_id, role, display_name, created_at, deactivated_at"


def _reviewer(row: sqlite3.Row) -> Reviewer:
    return Reviewer(
        row["id"],
        row["tenant_id"],
        row["user_id"],
        row["role"],
        row["created_at"],
        row["display_name"],
        row["deactivated_at"],
    )


def reviewer(db: Database, tenant_id: str, reviewer_id: str) -> Reviewer | None:
    """One roster row."""
    row = db.one(
        f"SELECT {_REVIEWER} FROM reviewers WHERE tenant_id = ? AND id = ?",
        (tenant_id, reviewer_id),
    )
    return None if row is None else _reviewer(row)


def reviewer_of_user(db: Database, tenant_id: str, user_id: str) -> Reviewer | None:
    """A user's roster row, active or not."""
    row = db.one(
        f"SELECT {_REVIEWER} FROM reviewers WHERE tenant_id = ? AND user_id = ?",
        (tenant_id, user_id),
    )
    return None if row is None else _reviewer(row)


def save_reviewer(db: Database, row: Reviewer) -> None:
    """Add a roster row, or rewrite a user's (role, name, active again)."""
    db.run(
        f"INSERT INTO reviewers ({_REVIEWER}) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = excluded.role, "
        "display_name = excluded.display_name, deactivated_at = excluded.deactivated_at",
        (
            row.id,
            row.tenant_id,
            row.user_id,
            row.role,
            row.display_name,
            row.created_at,
            row.deactivated_at,
        ),
    )


def reviewers_page(
    db: Database, tenant_id: str, *, role: str | None, limit: int, after: Sequence[SQLValue] | None
) -> list[Reviewer]:
    """Up to `limit + 1` roster rows, oldest first."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal({"role": role})
    if after:
        where.add("(created_at, id) > (?, ?)", *after)
    rows = db.all(
        f"SELECT {_REVIEWER} FROM reviewers WHERE {where} ORDER BY created_at, id LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_reviewer(row) for row in rows]
