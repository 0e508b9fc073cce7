"""Reading eval runs: one as stored or as its record (with progress while it runs), a page."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ...domain.errors import NotFound
from ...domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, RunSettings
from ...domain.paging import Page, fetch_page
from ...domain.results import CaseResult, EvalResult, FinishedCase
from ...runtime import memory
from ...store import eval_runs as store
from ...store.eval_runs import EvalRunRow, RunFilters
from ..context import Context


def get_record(ctx: Context, run_id: str) -> EvalRunRow:
    """An eval run as stored; 404 `eval-run-not-found`. A judged result's `per_case` is
    empty: its cases are read with `case_pages`."""
    record = store.get(ctx.db, run_id)
    if record is None or record.tenant_id != ctx.tenant_id:
        raise NotFound("eval-run", run_id, id_field="run_id")
    return record


@dataclass(frozen=True)
class CaseProgress:
    """How far a running eval run got: cases done of all, and its concurrency when known."""

    cases_done: int
    cases: int
    concurrency: int | None = None


@dataclass(frozen=True)
class EvalRun:
    """An eval run (`frozen_version` for a test-set run, `progress` while it runs)."""

    run_id: str
    tenant_id: str
    project_id: str
    suite_id: str
    suite_version: str
    kind: str
    status: str
    dry_run: bool
    started_at: str
    agent_ref: AgentCandidate | None = None
    flow_ref: FlowCandidate | None = None
    completed_at: str | None = None
    result: EvalResult | None = None
    error: str | None = None
    cancel_reason: str | None = None
    correlation_id: str | None = None
    comparison: RunSettings | None = None
    frozen_version: FrozenVersion | None = None
    progress: CaseProgress | None = None


def get(ctx: Context, run_id: str) -> EvalRun:
    """An eval run (its cases as in `get_record`); a running one says how many cases it
    finished."""
    record = get_record(ctx, run_id)
    if record.status not in ("pending", "running"):
        return record_of(record)
    progress = CaseProgress(record.cases_done, record.case_count, ctx.eval_concurrency.get(run_id))
    return record_of(record, progress)


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    filters: RunFilters,
) -> Page[EvalRun]:
    """A page of eval runs, newest first (their cases as in `get_record`)."""
    page = fetch_page(
        lambda size, after: store.list_page(
            ctx.db, ctx.tenant_id, limit=size, after=after, filters=filters
        ),
        limit=limit,
        cursor=cursor,
        position=lambda r: (r.started_at, r.run_id),
    )
    return page.map(record_of)


def record_of(row: EvalRunRow, progress: CaseProgress | None = None) -> EvalRun:
    """A stored eval run as its record."""
    return EvalRun(
        run_id=row.run_id,
        tenant_id=row.tenant_id,
        project_id=row.project_id,
        suite_id=row.suite_id,
        suite_version=row.suite_version,
        kind=row.kind,
        status=row.status,
        dry_run=row.dry_run,
        started_at=row.started_at,
        agent_ref=row.agent_ref,
        flow_ref=row.flow_ref,
        completed_at=row.completed_at,
        result=row.result,
        error=row.error,
        cancel_reason=row.cancel_reason,
        correlation_id=row.correlation_id,
        comparison=row.comparison,
        frozen_version=row.frozen_version,
        progress=progress,
    )


def case_pages(ctx: Context, run_id: str) -> Iterator[list[CaseResult]]:
    """Each finished case's comparison, in order, a page at a time; once more than one page
    was read, what reading them took goes back to the system, as after the run itself."""
    read = 0
    for page in store.case_pages(ctx.db, run_id):
        read += 1
        yield page
    if read > 1:
        memory.give_back()


def case_slice(ctx: Context, run: EvalRun, start: int, count: int) -> list[CaseResult]:
    """`count` of a judged run's case comparisons from the `start`-th, in order."""
    return store.case_slice(ctx.db, run.run_id, start, count)


def finished_after(
    ctx: Context, run_id: str, *, after: int
) -> Iterator[list[tuple[int, FinishedCase]]]:
    """The cases an eval run finished after index `after`, in order, a page at a time, read
    on a connection of their own (a thread's reader would keep their pages cached)."""
    return store.finished_after(ctx.db, run_id, after)
