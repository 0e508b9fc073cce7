"""What a reviewer's decision does to a run paused at a held tool call, and going on.

Approve runs the call; reject tells the model a reviewer rejected it (`{"status":
"rejected", "rationale"}`), as a deployed runtime does; escalate moves the wait to the
approval it was escalated to; withdraw ends the run (`failed`, `hitl-withdrawn`). The
decision is recorded with the approval, in its transaction; the turn then goes on inline,
from the snapshot SQLite kept, so a restart in between leaves it resumable.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..domain.approvals import GateDecision
from ..domain.time import now_iso
from ..runtime.approval_gate import ApprovalGate
from ..runtime.turn_snapshot import TurnSnapshot
from ..store import approvals as approval_store
from ..store import run_waits as store
from ..store import runs as run_store
from ..store.runs import JournalEntry
from . import approvals, catalog, conversations, runs
from .context import Context
from .runs.pause import SUBJECT as SUBJECT

WITHDRAWN = "hitl-withdrawn"


def on_decided(ctx: Context, decided: approvals.Decided) -> None:
    """Inside the decision's transaction: what the decision means for the waiting run."""
    wait = store.of_approval(ctx.db, decided.approval.id)
    if wait is None or wait.resolved_at is not None:
        return
    if decided.next_approval is not None:
        store.relink(ctx.db, wait.token_id, decided.next_approval.id)
        return
    record = decided.decision
    if record.decision == "withdraw":
        _withdrawn(ctx, wait.run_id, wait.token_id, record.decided_by)
        return
    gate = GateDecision(decided.approval.id, record.decision, record.decided_by, record.rationale)
    store.decide(ctx.db, wait.token_id, gate)


def _withdrawn(ctx: Context, run_id: str, token_id: str, by: str) -> None:
    now = now_iso()
    message = f"The approval the run waited for was withdrawn by {by}."
    store.resolve(ctx.db, token_id, now)
    runs.fail(ctx, run_id, WITHDRAWN, message, now)
    run_store.add_journal(
        ctx.db, run_id, [JournalEntry("run.failed", now, {"code": WITHDRAWN, "message": message})]
    )


@dataclass(frozen=True)
class Resumed:
    """What a decision did to its run: whether it went on, and its status now."""

    waitpoint_resolved: bool
    run_status: str | None = None
    resume: dict[str, Any] | None = None


async def after_decision(ctx: Context, decided: approvals.Decided) -> Resumed:
    """Go on with the run an approve or reject decided (inline); nothing for other subjects."""
    approval = decided.approval
    if approval.subject_kind != SUBJECT or approval.run_id is None:
        return Resumed(False)
    run = run_store.get(ctx.db, approval.run_id)
    status = None if run is None else str(run.status)
    if decided.decision.decision not in ("approve", "reject"):
        return Resumed(decided.decision.decision == "withdraw", status)
    if status != "suspended":
        return Resumed(False, status)
    await resume(ctx, approval.run_id)
    after = run_store.get(ctx.db, approval.run_id)
    done = str(None if after is None else after.status)
    if after is not None and done == "failed":
        failed = {
            "kind": "failed",
            "code": after.failure_code or "run-failed",
            "message": after.failure_message or "",
        }
        return Resumed(True, done, failed)
    return Resumed(True, done, {"kind": "ok"})


async def resume(ctx: Context, run_id: str) -> None:
    """Go on with a run whose wait was decided: the held call as decided, then the turn."""
    wait = store.open_of(ctx.db, run_id)
    run = run_store.get(ctx.db, run_id)
    if wait is None or wait.decision is None or run is None or run.status != "suspended":
        return
    gate = wait.decision
    now = now_iso()
    with ctx.db.transaction():
        store.resolve(ctx.db, wait.token_id, now)
        resumed = {"tokenId": wait.token_id, **gate.journal()}
        run_store.add_journal(ctx.db, run_id, [JournalEntry("wait.resumed", now, resumed)])
        run_store.update(ctx.db, run_id, {"status": "running", "updated_at": now})
    agent = catalog.get_agent(ctx, str(run.agent_id), run.agent_version)
    live = runs.live_dispatcher(ctx, str(run.project_id), run_id)
    dispatcher = ApprovalGate(live, unattended=True, decided={wait.call_id: gate})
    history = conversations.history(ctx, str(run.conversation_id), before_run=run_id)
    message = str(run.input.get("userMessage", "")) if isinstance(run.input, dict) else ""
    snapshot = TurnSnapshot.from_json(wait.snapshot)
    await runs.perform_turn(ctx, run_id, agent, message, history, dispatcher, paused=snapshot)


def resume_decided(ctx: Context) -> int:
    """At start: runs decided while kindgi dev was stopping go on now, in the background
    (a cancel stops them as it stops any run in flight); how many."""
    waiting = store.decided_open(ctx.db)
    for run_id in waiting:
        ctx.run_tasks[run_id] = asyncio.create_task(_resume_in_background(ctx, run_id))
    return len(waiting)


async def _resume_in_background(ctx: Context, run_id: str) -> None:
    try:
        await resume(ctx, run_id)
    finally:
        ctx.run_tasks.pop(run_id, None)


@dataclass(frozen=True)
class WaitingTool:
    """The tool call an approval holds: which tool and call, never its arguments."""

    id: str
    version: str
    call_id: str


@dataclass(frozen=True)
class WaitingApproval:
    """An approval a run waits for, as a run reader sees it."""

    approval_id: str
    status: str
    required_role: str
    created_at: str
    subject_kind: str
    title: str | None = None
    expires_at: str | None = None
    tool: WaitingTool | None = None


@dataclass(frozen=True)
class WaitingFor:
    """What a suspended run waits for: approvals still to decide, and the rest."""

    approvals: list[WaitingApproval]
    other: list[dict[str, Any]]


def waiting_for(ctx: Context, run_id: str) -> WaitingFor | None:
    """What a suspended run waits for (None for a run that doesn't wait)."""
    run = run_store.get(ctx.db, run_id)
    wait = store.open_of(ctx.db, run_id)
    if run is None or run.status != "suspended":
        return None
    if wait is None:
        return WaitingFor([], [{"what": "no-open-wait"}])
    approval = approval_store.get(ctx.db, ctx.tenant_id, wait.approval_id)
    if approval is None:
        return WaitingFor([], [{"what": "unattributed", "tokenId": wait.token_id}])
    if not approval.is_open:
        decided = {
            "what": "decided-approval",
            "approvalId": approval.id,
            "approvalStatus": approval.status,
        }
        return WaitingFor([], [decided])
    tool = WaitingTool(wait.tool_id, wait.tool_version, wait.call_id)
    shown = WaitingApproval(
        approval.id,
        approval.status,
        approval.required_role,
        approval.created_at,
        approval.subject_kind,
        approval.title,
        approval.expires_at,
        tool,
    )
    return WaitingFor([shown], [])
