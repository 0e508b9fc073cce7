"""An eval run's server-sent events: each finished case, the end with the result, and the
console's progress; rendered through the same models as the run's answer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ..domain.json import JSONObject
from ..domain.results import CaseResult, EvalResult, FinishedCase
from .eval_results import (
    ComparisonCaseResult,
    DryRunResultAnswer,
    JudgedComparisonResult,
    case_chunks,
    mark_cases,
)
from .routing import plain, shape
from .wire import WireModel


class ProgressEvent(WireModel):
    """The console's `progress`: cases done of all."""

    cases_done: int
    cases: int


class StatusEvent(WireModel):
    """The console's `end`: how the run ended."""

    status: str


class CaseEvent(WireModel):
    """`eval-run.case-completed`/`case-failed`: which run and case, then the case's result."""

    run_id: str
    case_index: int


class EndEvent(WireModel):
    """`eval-run.<status>`: the run ended, with its result and the error that ended it."""

    run_id: str
    status: str
    result: JudgedComparisonResult | DryRunResultAnswer | None = None
    error: str | None = None


def case_frame(run_id: str, index: int, case: FinishedCase) -> bytes:
    """The SSE frame of one finished case."""
    kind = "eval-run.case-failed" if case.result.error else "eval-run.case-completed"
    data = {
        **shape(CaseEvent, {"run_id": run_id, "case_index": index}),
        **shape(ComparisonCaseResult, case.result),
    }
    return _frame(f"{run_id}:case:{index}", kind, data)


def end_chunks(
    run_id: str,
    status: str,
    result: EvalResult | None,
    error: str | None,
    pages: Iterable[list[CaseResult]] | None = None,
) -> Iterator[bytes]:
    """The SSE frame that ends an eval run's stream; with `pages`, a judged result read
    without its cases, written a page of cases at a time."""
    ended: dict[str, object] = {"run_id": run_id, "status": status}
    if result is not None:
        ended["result"] = plain(result)
    if error:
        ended["error"] = error
    data = shape(EndEvent, ended)
    if pages is None:
        yield _frame(f"{run_id}:terminal", f"eval-run.{status}", data)
        return
    yield _head(f"{run_id}:terminal", f"eval-run.{status}").encode()
    yield from case_chunks(data, [(mark_cases(data), pages)])
    yield b"\n\n"


def progress_frame(cases_done: int, cases: int) -> bytes:
    """The console's frame of a running run's progress (cases done of all)."""
    return _frame(
        None, "progress", shape(ProgressEvent, {"cases_done": cases_done, "cases": cases})
    )


def status_frame(status: str) -> bytes:
    """The console's frame that says the run ended."""
    return _frame(None, "end", shape(StatusEvent, {"status": status}))


def _frame(event_id: str | None, kind: str, data: JSONObject) -> bytes:
    """One server-sent event: its id (to resume after), its kind and its JSON."""
    return f"{_head(event_id, kind)}{json.dumps(data)}\n\n".encode()


def _head(event_id: str | None, kind: str) -> str:
    """An event's lines up to its data's JSON."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: "
