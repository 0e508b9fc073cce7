"""Runs: the project's runs, newest first, and a run's page: input, answer, tools, journal."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from urllib.parse import urlencode

from starlette.responses import Response

from ..api.runs import StartRunBody
from ..domain.errors import BadInput, NotFound
from ..domain.items import answer_text, items_of
from ..domain.json import JSONObject
from ..domain.status import TERMINAL
from ..services import catalog, correction_queue, runs
from . import forms, shown
from .web import Visit, redirect

PAGE_SIZE = 50


def question_of(run: runs.StoredRun) -> str:
    """The user's message (or a flow's `question`) a run answered, else its input as JSON."""
    data = run.input
    if isinstance(data, dict):
        for name in ("userMessage", "question"):
            if isinstance(data.get(name), str):
                return str(data[name])
        return json.dumps(data, ensure_ascii=False)
    return "" if data is None else str(data)


def subject_of(run: runs.StoredRun) -> tuple[str, str]:
    """(id, version) of what the run ran: its agent, else its flow."""
    if run.agent_id:
        return run.agent_id, run.agent_version or ""
    return run.flow_id, run.flow_version


def _listed(visit: Visit, agent: str, version: str, replays: str) -> dict[str, object]:
    """A page of runs, each with its question and its live corrections (how many, and
    whether one is the caller's), and the pack's agents for the pickers."""
    page = runs.list_records(
        visit.ctx,
        limit=PAGE_SIZE,
        cursor=visit.cursor("runs"),
        filters={"agent_id": agent or None, "agent_version": version or None},
        statuses=(),
        replays=replays,
        with_output=False,
    )
    corrected = correction_queue.corrections_per_run(visit.ctx, [r.id for r in page.items])
    shown = [
        {
            "run": r,
            "subject": subject_of(r),
            "question": question_of(r),
            "corrections": corrected.get(r.id, (0, False)),
        }
        for r in page.items
    ]
    return {"runs": shown, "page": page, "agents": agent_ids(visit)}


async def list_runs(visit: Visit, error: BadInput | None = None) -> Response:
    """`/console/runs`: a page of runs, filtered by agent and version, replays when asked;
    corrected ones marked with their count."""
    agent = visit.request.query_params.get("agent") or ""
    version = visit.request.query_params.get("version") or ""
    replays = "include" if visit.request.query_params.get("replays") == "include" else "exclude"
    listed = await asyncio.to_thread(_listed, visit, agent, version, replays)
    queue = urlencode({k: v for k, v in (("agent", agent), ("version", version)) if v})
    return visit.render(
        "runs.html",
        200 if error is None else error.status,
        **listed,
        agent=agent,
        version=version,
        replays=replays,
        queue=queue,
        error=error,
    )


@dataclass(frozen=True)
class RunPick:
    """A run as a picker lists it: its id, when it ran, and its question."""

    id: str
    when: str
    question: str


def to_pick(visit: Visit, agent_id: str) -> list[RunPick]:
    """The agent's 50 newest finished runs (not replays), for a run picker."""
    page = runs.list_records(
        visit.ctx,
        limit=50,
        cursor=None,
        filters={"agent_id": agent_id},
        statuses=sorted(TERMINAL),
        replays="exclude",
        with_output=False,
    )
    return [RunPick(r.id, r.created_at, question_of(r)) for r in page.items]


def questions_of(visit: Visit, run_ids: list[str]) -> dict[str, str]:
    """Each run's question, for lists of what was made on them (empty for an erased run)."""
    found: dict[str, str] = {}
    for run_id in dict.fromkeys(run_ids):
        try:
            run = runs.get_record(visit.ctx, run_id)
        except NotFound:
            continue
        found[run_id] = "" if run.content_erased_at else question_of(run)
    return found


def agent_ids(visit: Visit) -> list[str]:
    """The ids of the pack's agents, for pickers."""
    found = catalog.list_page(
        visit.ctx, "agent", limit=100, cursor=None, name=None, include_retired=False
    )
    return [agent["id"] for agent in found.items]


async def start_run(visit: Visit) -> Response:
    """Start an agent turn from the runs page (a `runs.start` body, parsed as the API
    parses one) and open its page when it ends."""
    data: JSONObject = {
        "agent": visit.field("agent"),
        "input": {"userMessage": visit.field("message")},
    }
    try:
        body = forms.body_of(StartRunBody, data)
        run, _ = await runs.start(visit.ctx, str(body.agent), input=body.input)
    except BadInput as error:
        return await list_runs(visit, error=error)
    return redirect(f"/console/runs/{run.id}")


def _shown(visit: Visit, run_id: str) -> dict[str, object]:
    """Everything the run's page shows, read together."""
    run = runs.get_record(visit.ctx, run_id)
    journal = runs.journal(visit.ctx, run_id, since=-1, limit=None, cursor=None).items
    return {
        "run": run,
        "subject": subject_of(run),
        "question": question_of(run),
        "answer": answer_text(run.output),
        "items": items_of(run.output),
        "tools": runs.tool_calls(visit.ctx, run_id),
        "journal": journal,
        "saved": shown.saved_on(visit.ctx, run),
        "correctable": run.status in TERMINAL
        and run.output is not None
        and not run.content_erased_at,
    }


async def show_run(visit: Visit) -> Response:
    """`/console/runs/{id}`: what went in, what came out, each tool call, the journal, and
    what people saved on it (verdicts, decisions, answer, the cases they made)."""
    read = await asyncio.to_thread(_shown, visit, visit.request.path_params["runId"])
    return visit.render("run.html", 200, **read)
