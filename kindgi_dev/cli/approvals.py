"""`kindgi approvals list|get|complete`, as the real CLI has them, and `reviewer-token`:
a key for a second person on the reviewer roster, who may decide what the first asked."""

from __future__ import annotations

import click

from ..domain.json import JSON
from .answers import an_object, member
from .command import api_command
from .http import Api, in_path

STATUSES = ("pending", "assigned", "in_review", "approved", "rejected", "escalated", "expired",
            "withdrawn")  # fmt: skip


@click.group("approvals", help="Review approvals: list, get, complete; reviewer-token.")
def approvals() -> None:
    """The approvals group."""


@api_command(approvals, "list", help="The approvals your reviewer role can see.")
@click.option("--status", help="Comma-separated statuses (pending,assigned,in_review are open).")
@click.option("--assigned-to", type=click.Choice(["me"]))
@click.option("--decided-by", type=click.Choice(["me"]))
@click.option("--order", type=click.Choice(["asc", "desc"]))
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_approvals(api: Api, status: str | None, assigned_to: str | None, decided_by: str | None,
                   order: str | None, limit: int | None, cursor: str | None) -> JSON:  # fmt: skip
    statuses = [s.strip() for s in (status or "").split(",") if s.strip()]
    for value in statuses:
        if value not in STATUSES:
            raise click.UsageError(f"--status must be one of {', '.join(STATUSES)}, got {value!r}")
    query = {"status": ",".join(statuses) or None, "assignedTo": assigned_to,
             "decidedBy": decided_by, "order": order, "limit": limit, "cursor": cursor}  # fmt: skip
    return api.call("GET", "/v1/approvals", params=query)


@api_command(approvals, "get", help="One approval, by id.")
@click.argument("approval_id")
def get(api: Api, approval_id: str) -> JSON:
    return api.call("GET", f"/v1/approvals/{in_path(approval_id)}")


@api_command(approvals, "complete", help="Decide an approval: approve, reject, escalate or "
             "withdraw. A promotion's approval, approved, makes its version live.")  # fmt: skip
@click.argument("approval_id")
@click.option("--decision", required=True,
              type=click.Choice(["approve", "reject", "escalate", "withdraw"]))  # fmt: skip
@click.option("--rationale", help="Why, recorded with the decision.")
def complete(api: Api, approval_id: str, decision: str, rationale: str | None) -> JSON:
    body = {"decision": decision, **({"rationale": rationale} if rationale else {})}
    return api.call(
        "POST", f"/v1/approvals/{in_path(approval_id)}/complete", json=body, idempotent=True
    )


REVIEWER_HELP = (
    "A key for a second person, put on the reviewer roster: use it (--token, or "
    "KINDGI_API_TOKEN) to decide what you asked for."
)


@api_command(approvals, "reviewer-token", help=REVIEWER_HELP)
@click.option("--role", type=click.Choice(["standard", "senior", "admin"]), default="senior",
              show_default=True)  # fmt: skip
@click.option("--name", default="Second reviewer", show_default=True, help="Their display name.")
def reviewer_token(api: Api, role: str, name: str) -> JSON:
    minted = an_object(api.call("POST", "/v1/tokens", json={"label": f"reviewer: {name}"}))
    user_id = member(minted, "principal").get("id")
    row = an_object(api.call("POST", "/v1/approvals/reviewers",
                   json={"userId": user_id, "role": role, "displayName": name}))  # fmt: skip
    return {"token": minted["token"], "userId": user_id, "reviewerId": row["id"], "role": role}
