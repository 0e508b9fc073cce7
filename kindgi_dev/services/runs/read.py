"""Reading runs: one, a page of them, a journal; and cancelling one that still runs."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from ...domain.errors import Conflict, NotFound
from ...domain.paging import Page, clamp_limit, decode_cursor, fetch_page, make_page
from ...domain.status import TERMINAL
from ...store import runs as run_store
from ..context import Context
from .record import finish_cancelled


def get_record(ctx: Context, run_id: str) -> dict[str, Any]:
    """A run as stored; 404 `run-not-found`."""
    run = run_store.get(ctx.db, run_id)
    if run is None or run["tenant_id"] != ctx.tenant_id:
        raise NotFound("run", run_id)
    return run


def get(ctx: Context, run_id: str) -> dict[str, Any]:
    """A run on the wire."""
    return to_wire(get_record(ctx, run_id))


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: dict[str, Any],
    statuses: Sequence[str],
    replays: str,
    with_output: bool,
) -> Page[dict[str, Any]]:
    """A page of runs, newest first; replays only when asked for."""
    return list_records(
        ctx, limit=limit, cursor=cursor, filters=filters, statuses=statuses, replays=replays,
        with_output=with_output,
    ).map(to_wire)  # fmt: skip


def list_records(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: dict[str, Any],
    statuses: Sequence[str],
    replays: str,
    with_output: bool,
) -> Page[dict[str, Any]]:
    """A page of runs as stored (with their input), newest first."""
    return fetch_page(
        lambda size, after: run_store.list_page(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            filters=filters,
            statuses=statuses,
            replays=replays,
            with_output=with_output,
        ),
        limit=limit,
        cursor=cursor,
        position=lambda r: (r["created_at"], r["id"]),
    )


async def cancel(ctx: Context, run_id: str) -> dict[str, Any]:
    """Cancel a running run; 409 `run-already-terminal` once it has ended."""
    run = get_record(ctx, run_id)
    if run["status"] in TERMINAL:
        raise Conflict(
            f"Run {run_id} has already ended ({run['status']}).",
            code="run-already-terminal",
            runId=run_id,
        )
    task = ctx.run_tasks.get(run_id)
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    finish_cancelled(ctx, run_id)
    return get(ctx, run_id)


def journal(
    ctx: Context, run_id: str, *, since: int, limit: int | None, cursor: str | None
) -> dict[str, Any]:
    """A run's journal, in order, after `since` (or a cursor)."""
    get_record(ctx, run_id)
    position = decode_cursor(cursor)
    after = int(position[0]) if position else since
    size = None if limit is None else clamp_limit(limit)
    entries = run_store.journal(ctx.db, run_id, since=after, limit=size)
    if size is None:
        return Page(entries, False).to_wire()
    return make_page(entries, size, lambda e: (e["sequence"],)).to_wire()


def tool_calls(ctx: Context, run_id: str) -> list[dict[str, Any]]:
    """A run's tool calls in order: arguments, result or error, and `source`."""
    get_record(ctx, run_id)
    return run_store.tool_calls(ctx.db, run_id)


def to_wire(run: Mapping[str, Any]) -> dict[str, Any]:
    """A stored run as the contract's `Run`."""
    wire: dict[str, Any] = {
        "id": run["id"], "tenantId": run["tenant_id"], "projectId": run["project_id"],
        "flowId": run["flow_id"], "flowVersion": run["flow_version"], "status": run["status"],
        "dryRun": bool(run["dry_run"]), "createdAt": run["created_at"],
        "updatedAt": run["updated_at"],
    }  # fmt: skip
    if run.get("completed_at"):
        wire["completedAt"] = run["completed_at"]
    if run.get("failure_message") and run["status"] == "failed":
        wire["failureMessage"] = run["failure_message"]
        wire["failure"] = {
            "code": run.get("failure_code") or "run-failed",
            "message": run["failure_message"],
        }
    if run.get("output") is not None:
        wire["output"] = run["output"]
    if run.get("agent_id"):
        wire["agent"] = {
            "id": run["agent_id"],
            "version": run["agent_version"],
            "conversationId": run["conversation_id"],
            "via": run["via"],
        }
    if run.get("started_by"):
        wire["startedBy"] = run["started_by"]
    if run.get("replay_of"):
        wire["replayOf"] = run["replay_of"]
    if run.get("eval_run_id"):
        wire["evalRunId"] = run["eval_run_id"]
    if run.get("segments"):
        wire["segments"] = run["segments"]
    return wire
