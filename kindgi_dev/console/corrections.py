"""Correct this run: Yes or No on the answer and each list element, what it should have done
and said, and the corrector group; the form is a `/v1/corrections` body, parsed and saved as
the API parses and saves one.
"""

from __future__ import annotations

import asyncio
import json

from starlette.responses import Response

from ..api.corrections import CreateCorrectionBody, create_correction
from ..domain.errors import KindgiError
from ..domain.expectations import ExpectedCall
from ..domain.items import Item, items_of
from ..domain.json import JSON, JSONObject
from ..services import corrections, judge_classes, verdicts
from ..services.runs import StoredRun
from . import forms
from .queue_filters import queue_query
from .runs import question_of, subject_of
from .web import Visit, redirect


def _mine(visit: Visit, run_id: str) -> corrections.Correction | None:
    """The caller's live correction of the run, if any, to start the form from (not one
    made for a user of their app: saving the form makes the caller's own)."""
    page = corrections.list_page(
        visit.ctx,
        limit=1,
        cursor=None,
        filters={"run_id": run_id, "corrected_by": "me", "participant_id": ""},
        statuses=(),
        include_replaced=False,
    )
    return page.items[0] if page.items else None


def _groups(visit: Visit) -> list[judge_classes.JudgeClass]:
    page = judge_classes.list_page(
        visit.ctx, limit=100, cursor=None, scope_kind=None, project_id=None, agent_id=None
    )
    return page.items


def form_parts(visit: Visit, run: StoredRun) -> dict[str, object]:
    """What the correct form shows of a run: its question, items, tools and the groups."""
    return {
        "run": run,
        "subject": subject_of(run),
        "question": question_of(run),
        "items": items_of(run.output),
        "tools": sorted(verdicts.agent_tools(visit.ctx, run)),
        "groups": _groups(visit),
    }


def _show(
    visit: Visit,
    parts: dict[str, object],
    values: dict[str, str],
    errors: dict[str, str],
    status: int = 200,
) -> Response:
    return visit.render(
        "correct.html",
        status,
        **parts,
        values=values,
        errors=errors,
        queue=queue_query(values.get("queue", "")),
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
            "answer-right": "1" if answer and answer.verdict == "right" else "",
            "should-say": (answer and answer.should_say) or "",
            "why": (answer and answer.why) or "",
            "judge-class": correction.judge_class_id or "",
        }
    )
    return values


def filled(visit: Visit, run_id: str) -> tuple[dict[str, object], dict[str, str]]:
    """A correctable run's form parts, and the form's values from the caller's correction."""
    run = verdicts.correctable_run(visit.ctx, run_id)
    return form_parts(visit, run), _values_of(_mine(visit, run_id), items_of(run.output))


async def form(visit: Visit) -> Response:
    """`GET /console/runs/{id}/correct`: the form, filled with the caller's correction."""
    parts, values = await asyncio.to_thread(filled, visit, visit.request.path_params["runId"])
    return _show(visit, parts, values, {})


ARGS = "decisions/shouldCall/0/args"
"""Where the form's arguments (JSON) go in the body, and the field their refusals name."""


def _decisions(visit: Visit) -> JSONObject | None:
    """The body's `decisions`: the verdict, the call it should have made, what not to call."""
    verdict = visit.field("decisions-verdict")
    if not verdict:
        return None
    tool, args = visit.field("should-call-tool"), visit.field("should-call-args")
    call = forms.present(toolId=tool, args=forms.json_text(args, ARGS) if args else None)
    must_not: list[JSON] = [t.strip() for t in visit.field("must-not-call").split(",") if t.strip()]
    return forms.present(
        verdict=verdict, shouldCall=[call] if tool else None, mustNotCall=must_not or None
    )


def _answer(visit: Visit) -> JSONObject | None:
    """The body's `answer`: `wrong` with what it should have said and why, when the form says
    either; `right` when test runs are to check that an answer says what this one said. (The
    answer's own Yes or No is its row among the items: it is asked once.)"""
    words = visit.field("should-say") or visit.field("why")
    verdict = "right" if visit.field("answer-right") else "wrong" if words else None
    if verdict is None:
        return None
    return forms.present(
        verdict=verdict, shouldSay=visit.field("should-say") or None, why=visit.field("why") or None
    )


def _item(visit: Visit, i: int, item: Item, verdict: str) -> JSONObject:
    """The body's entry for the item on row `i`: its key, place, verdict, rank and reason."""
    rank, reason = visit.field(f"rank-{i}"), visit.field(f"reason-{i}")
    return forms.present(
        key=item.key,
        pointer=item.pointer,
        verdict=verdict,
        rank=forms.number_text(rank) if rank else None,
        reason=reason or None,
    )


def _sent(visit: Visit, items: list[Item]) -> tuple[list[JSON], list[int]]:
    """The body's items (those the form gives a verdict) and each one's row on the form."""
    sent: list[JSON] = []
    rows: list[int] = []
    for i, item in enumerate(items):
        verdict = visit.field(f"verdict-{i}")
        if verdict:
            sent.append(_item(visit, i, item, verdict))
            rows.append(i)
    return sent, rows


def body_of(visit: Visit, run_id: str, sent: list[JSON]) -> CreateCorrectionBody:
    """The `corrections.create` body the form says, parsed as the API parses it."""
    data = forms.present(
        runId=run_id,
        items=sent,
        decisions=_decisions(visit),
        answer=_answer(visit),
        judgeClassId=visit.field("judge-class") or None,
    )
    written = ARGS if visit.field("should-call-args") else None
    return forms.body_of(CreateCorrectionBody, data, written=written)


def _beside(error: KindgiError, rows: list[int]) -> str:
    """The form field a refusal names: `items/<n>/…` is the n-th item sent, on its own row;
    anything within the arguments is the arguments' field."""
    where = str(error.details.get("field") or "")
    parts = where.split("/")
    if len(parts) >= 3 and parts[0] == "items" and parts[1].isdigit() and int(parts[1]) < len(rows):
        return "/".join(["items", str(rows[int(parts[1])]), parts[2]])
    if where == ARGS or where.startswith(ARGS + "/"):
        return ARGS
    return where or "form"


async def save(visit: Visit) -> Response:
    """`POST /console/runs/{id}/correct`: save, or show the refusal beside its field."""
    run = verdicts.correctable_run(visit.ctx, visit.request.path_params["runId"])
    sent, rows = _sent(visit, items_of(run.output))
    try:
        body = body_of(visit, run.id, sent)
        forms.written(visit.ctx, lambda: create_correction(visit.ctx, body))
    except KindgiError as error:
        beside = _beside(error, rows)
        said = forms.reason_of(error, ARGS if beside == ARGS else None)
        parts = form_parts(visit, run)
        return _show(visit, parts, dict(visit.form or {}), {beside: said}, error.status)
    queue = queue_query(visit.field("queue"))
    if queue is not None:
        return redirect(f"/console/queue?{queue}" if queue else "/console/queue")
    return redirect(f"/console/runs/{run.id}?saved=1")
