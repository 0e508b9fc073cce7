"""`/console/queue`: the correction queue, the runs still to correct one at a time, each with
the correct form; saving it opens the next. Plain forms work without JavaScript; `console.js`
adds the keys (`j`/`k`, `y`/`n`, `r`, `Enter`, `?`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from ..services import catalog, correction_queue, projects
from ..services.correction_queue import QueueCounts
from ..services.projects import Project
from . import corrections
from .queue_filters import chosen, filter_of, progress_words
from .web import Visit


@dataclass(frozen=True)
class Choices:
    """What the queue's filters offer: the pack's agents and flows, and the projects."""

    subjects: list[str]
    projects: list[Project]


def _choices(visit: Visit) -> Choices:
    subjects = [
        entry["id"]
        for kind in ("agent", "flow")
        for entry in catalog.list_page(
            visit.ctx, kind, limit=100, cursor=None, name=None, include_retired=False
        ).items
    ]
    found = projects.list_page(visit.ctx, limit=100, cursor=None, org_id=None, name_contains=None)
    return Choices(subjects, list(found.items))


def _read(visit: Visit, given: dict[str, str]) -> dict[str, Any]:
    """The queue's counts, its next run's form (when one is left) and the filters' choices."""
    counts: QueueCounts = correction_queue.counts(
        visit.ctx, filter_of(given), newest_first=given["order"] == "newest"
    )
    parts: dict[str, Any] = {}
    values: dict[str, str] = {}
    if counts.next_run_id is not None:
        parts, values = corrections.filled(visit, counts.next_run_id)
    return {"counts": counts, "parts": parts, "values": values, "choices": _choices(visit)}


async def show(visit: Visit) -> Response:
    """`GET /console/queue`: the filters, the progress in words, and the next run's form."""
    given = chosen(visit.request.query_params)
    read = await asyncio.to_thread(_read, visit, given)
    counts: QueueCounts = read["counts"]
    return visit.render(
        "queue.html",
        given=given,
        queue=urlencode(given),
        counts=counts,
        progress=progress_words(counts),
        choices=read["choices"],
        values=read["values"],
        errors={},
        **read["parts"],
    )
