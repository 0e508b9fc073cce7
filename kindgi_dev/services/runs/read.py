"""Reading runs: one, a page of them, a journal; and cancelling one that still runs."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...domain.errors import Conflict, NotFound
from ...domain.json import JSON, JSONObject
from ...domain.paging import Page, clamp_limit, fetch_page, make_page, whole_after
from ...domain.segments import Segment
from ...domain.status import TERMINAL
from ...store import runs as run_store
from ...store import tool_calls as tool_call_store
from ...store.query import SQLValue
from ...store.runs import JournalEntry as JournalEntry
from ...store.runs import StoredRun
from ..context import Context
from . import pause, replay_journal
from .record import finish_cancelled


@dataclass(frozen=True)
class RunFailure:
    """Why a run failed: a code and words for the person reading it."""

    code: str
    message: str


@dataclass(frozen=True)
class RunAgent:
    """The agent turn a run is: which version answered, in which conversation, picked how."""

    id: str
    version: str
    conversation_id: str
    via: str


@dataclass(frozen=True)
class Run:
    """A run: what ran, its status and times, and its output once it ended."""

    id: str
    tenant_id: str
    project_id: str
    flow_id: str
    flow_version: str
    status: str
    dry_run: bool
    created_at: str
    updated_at: str
    completed_at: str | None = None
    failure_message: str | None = None
    failure: RunFailure | None = None
    output: JSON = None
    agent: RunAgent | None = None
    started_by: str | None = None
    replay_of: str | None = None
    eval_run_id: str | None = None
    versions: JSON = None
    """A flow replay's tools and agents at other versions than the flow's (`versions`)."""
    segments: tuple[Segment, ...] | None = None
    waiting_for: object | None = None
    """What a suspended run waits for (`run_waits.WaitingFor`), on a read of one run."""


def get_record(ctx: Context, run_id: str) -> StoredRun:
    """A run as stored; 404 `run-not-found`."""
    run = run_store.get(ctx.db, run_id)
    if run is None or run.tenant_id != ctx.tenant_id:
        raise NotFound("run", run_id)
    return run


def get_records(ctx: Context, run_ids: Sequence[str]) -> dict[str, StoredRun]:
    """The caller's tenant's runs among `run_ids`, as stored, by id (one not found is left
    out): a read of many at a time, for a batch that names many runs."""
    found = run_store.get_many(ctx.db, run_ids)
    return {run_id: run for run_id, run in found.items() if run.tenant_id == ctx.tenant_id}


def get(ctx: Context, run_id: str) -> Run:
    """One run; 404 `run-not-found`."""
    return run_of(get_record(ctx, run_id))


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: Mapping[str, SQLValue],
    statuses: Sequence[str],
    replays: str,
    with_output: bool,
) -> Page[Run]:
    """A page of runs, newest first; replays only when asked for."""
    return list_records(
        ctx,
        limit=limit,
        cursor=cursor,
        filters=filters,
        statuses=statuses,
        replays=replays,
        with_output=with_output,
    ).map(run_of)


def list_records(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: Mapping[str, SQLValue],
    statuses: Sequence[str],
    replays: str,
    with_output: bool,
) -> Page[StoredRun]:
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
        position=lambda r: (r.created_at, r.id),
    )


async def cancel(ctx: Context, run_id: str) -> Run:
    """Cancel a running run; 409 `run-already-terminal` once it has ended."""
    run = get_record(ctx, run_id)
    if run.status in TERMINAL:
        raise Conflict(
            f"Run {run_id} has already ended ({run.status}).",
            code="run-already-terminal",
            runId=run_id,
        )
    task = ctx.run_tasks.get(run_id)
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    finish_cancelled(ctx, run_id)
    pause.withdraw(ctx, run_id, "run-cancelled")
    return get(ctx, run_id)


def journal(
    ctx: Context, run_id: str, *, since: int, limit: int | None, cursor: str | None
) -> Page[JournalEntry]:
    """A run's journal, in order, after `since` (or a cursor)."""
    run = get_record(ctx, run_id)
    position = whole_after(cursor)
    after = since if position is None else position
    size = None if limit is None else clamp_limit(limit)
    entries = run_store.journal(ctx.db, run_id, since=after, limit=size)
    if not entries and replay_journal.kept_whole(run):
        entries = _worked_out(ctx, run, after, size)
    if size is None:
        return Page(entries, False)
    return make_page(entries, size, lambda e: (e.sequence,))


def _worked_out(ctx: Context, run: StoredRun, after: int, size: int | None) -> list[JournalEntry]:
    """A completed replay's journal after `after` (`size + 1` at most), when it stores none."""
    if run_store.journal(ctx.db, run.id, since=-1, limit=0):
        return []  # it has stored entries, none after `after`
    derived = replay_journal.journal_of(run, tool_call_store.tool_calls(ctx.db, run.id))
    later = [e for e in derived if e.sequence is not None and e.sequence > after]
    return later if size is None else later[: size + 1]


def tool_calls(ctx: Context, run_id: str) -> list[JSONObject]:
    """A run's tool calls in order: arguments, result or error, and `source`."""
    get_record(ctx, run_id)
    return tool_call_store.tool_calls(ctx.db, run_id)


def run_of(run: StoredRun) -> Run:
    """A stored run as the record callers read."""
    failed = run.status == "failed" and bool(run.failure_message)
    versions = None if run.agent_id else (run.context or {}).get("versions")
    return Run(
        id=run.id,
        tenant_id=run.tenant_id,
        project_id=run.project_id,
        flow_id=run.flow_id,
        flow_version=run.flow_version,
        status=run.status,
        dry_run=run.dry_run,
        created_at=run.created_at,
        updated_at=run.updated_at,
        completed_at=run.completed_at or None,
        failure_message=run.failure_message if failed else None,
        failure=RunFailure(run.failure_code or "run-failed", run.failure_message or "")
        if failed
        else None,
        output=run.output,
        agent=RunAgent(
            run.agent_id, run.agent_version or "", run.conversation_id or "", run.via or ""
        )
        if run.agent_id
        else None,
        started_by=run.started_by or None,
        replay_of=run.replay_of or None,
        eval_run_id=run.eval_run_id or None,
        versions=versions,
        segments=run.segments or None,
    )
