"""Approvals: what waits for a reviewer (a run's held tool call, a promotion), each with
Approve and Reject; deciding a held call resumes its run, as `approvals.complete` does."""

from __future__ import annotations

from starlette.responses import Response

from ..api.approvals import CompleteBody
from ..domain.approvals import OPEN
from ..domain.errors import BadInput, KindgiError
from ..services import approval_subjects, approvals, run_waits
from . import forms
from .web import Visit, redirect

PAGE_SIZE = 50
DONE = {
    "approved": "Approved.",
    "rejected": "Rejected.",
}


async def index(visit: Visit, error: KindgiError | None = None, status: int = 200) -> Response:
    """`/console/approvals`: the approvals still to decide, oldest first."""
    query = approvals.ApprovalQuery(statuses=OPEN, order="asc")
    page = approvals.list_page(visit.ctx, query, limit=PAGE_SIZE, cursor=visit.cursor("approvals"))
    decided = DONE.get(visit.request.query_params.get("decided", ""))
    went_on = visit.request.query_params.get("run")
    return visit.render(
        "approvals.html",
        status,
        approvals=page.items,
        page=page,
        decided=decided,
        went_on=went_on,
        error=error,
    )


async def decide(visit: Visit) -> Response:
    """`POST /console/approvals/{approvalId}`: approve or reject; a held call's run goes on
    before the page comes back."""
    approval_id = visit.request.path_params["approvalId"]
    decision = visit.field("decision")
    if decision not in ("approve", "reject"):
        return await index(visit, BadInput("Choose Approve or Reject."), 400)
    try:
        given = forms.present(decision=decision, rationale=visit.field("rationale") or None)
        body = forms.body_of(CompleteBody, given)  # refused as the API refuses it
        decided = approval_subjects.complete(visit.ctx, approval_id, body.decision, body.rationale)
    except KindgiError as error:
        return await index(visit, error, error.status)
    resumed = await run_waits.after_decision(visit.ctx, decided)
    went_on = f"&run={decided.approval.run_id}" if resumed.waitpoint_resolved else ""
    return redirect(f"/console/approvals?decided={decided.approval.status}{went_on}")
