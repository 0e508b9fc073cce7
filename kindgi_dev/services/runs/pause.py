"""A run paused at a tool call that needs a person's yes: the approval it waits for (a
`tool-call:pending` subject of the approvals mechanism), the turn kept in SQLite, the
journal's `wait.suspended`; and the approval withdrawn when the run is cancelled, or when an
erasure clears the run's conversation (the turn kept to go on with holds the person's words).
An erasure ends the person's runs still going too, their turns stopped (`end_erased`).

A paused run holds no worker: nothing runs until a reviewer decides (`run_waits`).
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from ...domain import facts
from ...domain.json import JSONObject
from ...domain.status import TERMINAL
from ...domain.time import now_iso
from ...runtime.turn_outcome import TurnOutcome
from ...store import approvals as approval_store
from ...store import run_waits as store
from ...store import runs as run_store
from ...store.run_waits import Wait
from ...store.runs import JournalEntry
from .. import approvals
from ..context import Context
from .record import finish_cancelled

SUBJECT = "tool-call:pending"
"""The approval subject of a tool call held for review, as the 0.1.10 client names it."""

ERASED = "An erasure of its conversation ended the run while it waited for an approval."
"""Why a run paused in an erased conversation was cancelled."""
ERASED_RUNNING = "An erasure of its conversation ended the run while it ran."
"""Why a run still going in an erased conversation was cancelled: its turn, when it ends,
finds the run ended and writes nothing (`record_outcome`)."""


def hold(
    ctx: Context, run_id: str, agent: dict[str, Any], tool_version: str, outcome: TurnOutcome
) -> None:
    """Pause the run at its held call: open its approval, keep the turn, journal the wait."""
    snapshot = outcome.paused
    assert snapshot is not None
    held = snapshot.held
    run = run_store.get(ctx.db, run_id)
    token = f"wt-{uuid.uuid4()}"
    now = now_iso()
    subject = {
        "conversationId": None if run is None else run.conversation_id,
        "agentId": agent["id"],
        "agentVersion": agent["version"],
        "toolId": held.tool_id,
        "toolVersion": tool_version,
        "callId": held.id,
        "argsHash": facts.hash_of(held.arguments),
        "arguments": held.arguments,
    }
    journal = [
        JournalEntry("step.completed", now, r.as_journal(), node_id=f"tool:{r.tool_id}")
        for r in snapshot.records
    ]
    with ctx.db.transaction():
        if _ended(ctx, run_id):
            return
        approval = approvals.open_approval(
            ctx,
            SUBJECT,
            subject,
            required_role="standard",
            separate_approver=False,
            project_id=None if run is None else run.project_id,
            title=f"HITL review: {held.tool_id}",
            description=f"Tool call {held.tool_id} awaiting reviewer approval before dispatch.",
            wait=(token, run_id, None),
        )
        kept = replace(snapshot, journaled=len(snapshot.records))
        store.insert(
            ctx.db,
            Wait(
                token, run_id, approval.id, held.tool_id, tool_version, held.id, kept.to_json(), now
            ),
        )
        waiting: JSONObject = {
            "tokenId": token,
            "approvalId": approval.id,
            "toolId": held.tool_id,
            "callId": held.id,
        }
        journal.append(JournalEntry("wait.suspended", now, waiting, node_id=f"tool:{held.tool_id}"))
        run_store.add_journal(ctx.db, run_id, journal)
        run_store.update(ctx.db, run_id, {"status": "suspended", "updated_at": now})


def _ended(ctx: Context, run_id: str) -> bool:
    """Whether the run ended while its turn went on (a cancel, an erasure): what the turn
    did is then not kept, so an erasure's words aren't written back."""
    run = run_store.get(ctx.db, run_id)
    return run is None or run.status in TERMINAL


def withdraw(ctx: Context, run_id: str, because: str) -> None:
    """The run ended while it waited: its approval is withdrawn and its wait closed."""
    wait = store.open_of(ctx.db, run_id)
    if wait is None:
        return
    now = now_iso()
    with ctx.db.transaction():
        found = approval_store.get(ctx.db, ctx.tenant_id, wait.approval_id)
        if found is not None and found.is_open:
            approval_store.update(
                ctx.db,
                replace(found, status="withdrawn", updated_at=now, withdrawn_because=because),
            )
        store.resolve(ctx.db, wait.token_id, now)
        cancelled: JSONObject = {
            "tokenId": wait.token_id,
            "approvalId": wait.approval_id,
            "reason": because,
        }
        run_store.add_journal(ctx.db, run_id, [JournalEntry("wait.cancelled", now, cancelled)])


def end_erased(ctx: Context, run_ids: list[str]) -> None:
    """An erasure's: those of these runs that haven't ended are cancelled. A run still
    going would write its turn, the person's words with it, back into the run and its
    conversation when the turn ends, and could call more tools (`kindgi_remember` among
    them): its turn is stopped once the erasure commits. One waiting at a held call has its
    approval withdrawn too (`run-ended`), since a decision would go on with the turn the
    wait kept."""
    paused = set(store.paused_among(ctx.db, run_ids))
    going = []
    for run_id in run_store.unfinished_among(ctx.db, run_ids):
        finish_cancelled(ctx, run_id, ERASED if run_id in paused else ERASED_RUNNING)
        if run_id in paused:
            withdraw(ctx, run_id, "run-ended")
        else:
            going.append(run_id)
    ctx.db.after_commit(lambda: _stop_turns(ctx, going))


def _stop_turns(ctx: Context, run_ids: list[str]) -> None:
    """Cancel the turns still going of these runs on the API's loop, as a run's cancel
    does, so they call no model or tool more: one already sent ends, but the turn keeps
    nothing of it."""
    home = ctx.home
    if home is None or home.is_closed():  # stopping: the turns end with the loop
        return
    for run_id in run_ids:
        task = ctx.run_tasks.get(run_id)
        if task is not None:
            home.call_soon_threadsafe(task.cancel)
