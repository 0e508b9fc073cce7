"""Recording a run: what a finished turn did, a cancellation, runs a stop left running."""

from __future__ import annotations

from typing import Any

from ...domain.json import JSON
from ...domain.status import TERMINAL
from ...domain.time import now_iso
from ...runtime.agent_turn import HISTORY_LIMIT, TurnOutcome, turn_result
from ...store import runs as run_store
from ...store import tool_calls as tool_call_store
from ...store.runs import JournalEntry
from .. import conversations
from ..context import Context


def record_outcome(
    ctx: Context,
    run_id: str,
    outcome: TurnOutcome,
    history: list[dict[str, Any]],
    sent_env: dict[str, Any],
    *,
    journaled: int = 0,
    asked_model: str | None = None,
) -> None:
    """Store a finished turn: output, tool calls, journal (but the first `journaled` calls,
    written when it paused), conversation messages, and the model it asked for (what its
    cost is priced by: a provider may answer as another). Read and written in one
    transaction, so a run that ended meanwhile keeps nothing of the turn."""
    with ctx.db.transaction():
        run = run_store.get(ctx.db, run_id)
        if run is None or run.status in TERMINAL or run.conversation_id is None:
            return  # ended meanwhile (a cancel, an erasure): what the turn did isn't kept
        now = now_iso()
        turn = conversations.turn_number(ctx, run.conversation_id, run_id)
        output: JSON = turn_result(outcome, run_id, run.conversation_id, turn)
        changes: run_store.RunChanges = {
            "status": "completed" if outcome.ok else "failed",
            "updated_at": now,
            "completed_at": now,
            "output": output,
            "context": {
                "history": [*history[-HISTORY_LIMIT:]],
                "historyTruncated": len(history) > HISTORY_LIMIT,
                "retrieved": [],
            },
            "tool_env": sent_env,
            "provider_id": outcome.provider.get("id"),
            "model": outcome.provider.get("model"),
            "asked_model": asked_model,
        }
        if outcome.failure:
            changes["failure_code"] = outcome.failure["code"]
            changes["failure_message"] = outcome.failure["message"]
        journal = [
            JournalEntry("step.completed", now, c.as_journal(), node_id=f"tool:{c.tool_id}")
            for c in outcome.tool_calls[journaled:]
        ]
        end = "run.completed" if outcome.ok else "run.failed"
        journal.append(JournalEntry(end, now, outcome.failure or {}))
        run_store.update(ctx.db, run_id, changes)
        tool_call_store.add_tool_calls(ctx.db, run_id, [c.as_journal() for c in outcome.tool_calls])
        run_store.add_journal(ctx.db, run_id, journal)
        conversations.record_turn(ctx, run.conversation_id, run_id, outcome.appended, now)


def finish_cancelled(ctx: Context, run_id: str, reason: str = "Cancelled.") -> None:
    """Mark a run cancelled (if it hasn't ended)."""
    now = now_iso()
    with ctx.db.transaction():
        run = run_store.get(ctx.db, run_id)
        if run is None or run.status in TERMINAL:
            return
        run_store.update(
            ctx.db,
            run_id,
            {
                "status": "cancelled",
                "updated_at": now,
                "completed_at": now,
                "failure_message": reason,
            },
        )
        run_store.add_journal(ctx.db, run_id, [JournalEntry("run.cancelled", now)])


def fail(ctx: Context, run_id: str, code: str, message: str, now: str) -> None:
    """Mark a run failed at `now`, with the code and message saying why (its journal entry,
    when it gets one, is the caller's)."""
    run_store.update(
        ctx.db,
        run_id,
        {
            "status": "failed",
            "updated_at": now,
            "completed_at": now,
            "failure_code": code,
            "failure_message": message,
        },
    )


def fail_interrupted(ctx: Context) -> int:
    """At start: runs a stopped process left running are failed, saying why."""
    left = run_store.running(ctx.db)
    now = now_iso()
    message = "Interrupted: kindgi dev stopped before the run finished."
    with ctx.db.transaction():
        for run_id in left:
            fail(ctx, run_id, "interrupted", message, now)
    return len(left)
