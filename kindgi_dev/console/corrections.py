"""Correct this run: Yes or No on the answer and each list element, what it should have done
and said, and the corrector group; saved through the same service as `/v1/corrections`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response

from ..domain.errors import KindgiError, ValidationFailed
from ..domain.expectations import Answer, Decisions, ExpectedCall, GivenItem
from ..domain.items import Item, items_of
from ..services import corrections, judge_classes, verdicts
from .runs import question_of, subject_of
from .web import Visit, redirect


def _mine(visit: Visit, run_id: str) -> corrections.Correction | None:
    """The caller's live correction of the run, if any, to start the form from."""
    page = corrections.list_page(
        visit.ctx,
        limit=1,
        cursor=None,
        filters={"run_id": run_id, "corrected_by": "me"},
        statuses=(),
        include_replaced=False,
    )
    return page.items[0] if page.items else None


def _groups(visit: Visit) -> list[judge_classes.JudgeClass]:
    page = judge_classes.list_page(
        visit.ctx, limit=100, cursor=None, scope_kind=None, project_id=None, agent_id=None
    )
    return page.items


def _show(
    visit: Visit,
    run: dict[str, Any],
    values: dict[str, str],
    errors: dict[str, str],
    status: int = 200,
) -> Response:
    items: list[Item] = items_of(run.get("output"))
    return visit.render(
        "correct.html",
        status,
        run=run,
        subject=subject_of(run),
        question=question_of(run),
        items=items,
        tools=sorted(verdicts.agent_tools(visit.ctx, run)),
        groups=_groups(visit),
        values=values,
        errors=errors,
    )


def _values_of(correction: corrections.Correction | None, items: list[Item]) -> dict[str, str]:
    """Form values from a saved correction (verdicts, reasons, ranks, parts, group)."""
    values: dict[str, str] = {}
    for i, item in enumerate(items):
        values[f"rank-{i}"] = "" if item.rank is None else str(item.rank)
    if correction is None:
        return values
    saved = {entry.key: entry for entry in correction.items}
    for i, item in enumerate(items):
        entry = saved.get(item.key)
        if entry is not None:
            values[f"verdict-{i}"] = entry.verdict
            values[f"reason-{i}"] = entry.reason or ""
            values[f"rank-{i}"] = "" if entry.rank is None else str(entry.rank)
    decisions, answer = correction.decisions, correction.answer
    calls = (decisions and decisions.should_call) or (ExpectedCall(""),)
    values.update(
        {
            "decisions-verdict": decisions.verdict if decisions else "",
            "should-call-tool": calls[0].tool_id,
            "should-call-args": json.dumps(calls[0].args) if calls[0].args else "",
            "must-not-call": ", ".join((decisions and decisions.must_not_call) or ()),
            "answer-verdict": answer.verdict if answer else "",
            "should-say": (answer and answer.should_say) or "",
            "why": (answer and answer.why) or "",
            "judge-class": correction.judge_class_id or "",
        }
    )
    return values


async def form(visit: Visit) -> Response:
    """`GET /console/runs/{id}/correct`: the form, filled with the caller's correction."""
    run = verdicts.correctable_run(visit.ctx, visit.request.path_params["runId"])
    values = _values_of(_mine(visit, run["id"]), items_of(run.get("output")))
    return _show(visit, run, values, {})


def _rank(text: str, where: str) -> int | None:
    """A rank as a number; 400 at `where` when the text reads as none."""
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValidationFailed(where, "must be an integer, 0 or more") from None


def _decisions(visit: Visit) -> Decisions | None:
    verdict = visit.field("decisions-verdict")
    if not verdict:
        return None
    tool, args = visit.field("should-call-tool"), visit.field("should-call-args")
    calls = None
    if tool:
        try:
            given = json.loads(args) if args else None
        except ValueError as error:
            raise ValidationFailed("decisions/shouldCall/0/args", f"is not JSON: {error}") from None
        calls = (ExpectedCall(tool, given),)
    must_not = [t.strip() for t in visit.field("must-not-call").split(",") if t.strip()]
    return Decisions(verdict, calls, tuple(must_not) or None)


def _answer(visit: Visit) -> Answer | None:
    verdict = visit.field("answer-verdict")
    if not verdict:
        return None
    return Answer(verdict, visit.field("should-say") or None, visit.field("why") or None)


def body_of(visit: Visit, run_id: str, items: list[Item]) -> tuple[dict[str, Any], list[int]]:
    """The `corrections.create` arguments the form says, and each sent item's row on the form."""
    sent, rows = [], []
    for i, item in enumerate(items):
        verdict = visit.field(f"verdict-{i}")
        if not verdict:
            continue
        rank = _rank(visit.field(f"rank-{i}"), f"items/{i}/rank")
        reason = visit.field(f"reason-{i}") or None
        sent.append(GivenItem(item.key, item.pointer, verdict, rank, reason))
        rows.append(i)
    body: dict[str, Any] = {
        "run_id": run_id,
        "items": sent,
        "decisions": _decisions(visit),
        "answer": _answer(visit),
        "judge_class_id": visit.field("judge-class") or None,
    }
    return body, rows


def _beside(error: KindgiError, rows: list[int]) -> str:
    """The form field a refusal names: `items/<n>/…` is the n-th item sent, on its own row."""
    where = str(error.details.get("field") or "")
    parts = where.split("/")
    if len(parts) >= 2 and parts[0] == "items" and parts[1].isdigit() and int(parts[1]) < len(rows):
        parts[1] = str(rows[int(parts[1])])
    return "/".join(parts) or "form"


async def save(visit: Visit) -> Response:
    """`POST /console/runs/{id}/correct`: save, or show the refusal beside its field."""
    run = verdicts.correctable_run(visit.ctx, visit.request.path_params["runId"])
    items = items_of(run.get("output"))
    rows: list[int] = []
    try:
        body, rows = body_of(visit, run["id"], items)
        corrections.create(visit.ctx, **body)
    except KindgiError as error:
        values = dict(visit.form or {})
        reason = error.details.get("reason") or error.message
        return _show(visit, run, values, {_beside(error, rows): reason}, error.status)
    return redirect(f"/console/runs/{run['id']}?saved=1")
