"""`/console/queue`: the correction queue, the runs still to correct one at a time, each with
the correct form; saving it opens the next. Plain forms work without JavaScript; `console.js`
adds the keys (`j`/`k`, `y`/`n`, `r`, `Enter`, `?`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from urllib.parse import urlencode

from starlette.responses import Response

from ..domain.errors import BadInput
from ..services import catalog, correction_queue, projects
from ..services.correction_queue import QueueCounts, QueueFilter
from ..services.projects import Project
from . import corrections, forms
from .queue_filters import chosen, filter_of, progress_words
from .web import Visit


@dataclass(frozen=True)
class Choices:
    """What the queue's filters offer: the pack's agents and flows, and the projects."""

    subjects: list[str]
    projects: list[Project]


@dataclass
class Read:
    """What the queue's page read: the choices, and the counts and next run's form when the
    filters were taken."""

    choices: Choices
    counts: QueueCounts | None = None
    parts: dict[str, object] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)


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


def _read(visit: Visit, given: dict[str, str], chosen_filter: QueueFilter | None) -> Read:
    """The queue's counts, its next run's form (when one is left) and the filters' choices;
    no counts for a filter refused."""
    read = Read(_choices(visit))
    if chosen_filter is None:
        return read
    newest_first = given["order"] == "newest"
    read.counts = correction_queue.counts(
        visit.ctx, chosen_filter, newest_first=newest_first, after=given.get("after")
    )
    if read.counts.next_run_id is not None:
        read.parts, read.values = corrections.filled(visit, read.counts.next_run_id)
    return read


async def show(visit: Visit) -> Response:
    """`GET /console/queue`: the filters, the progress in words, and the next run's form; a
    segment that isn't `key=value` is refused beside its field."""
    given = chosen(visit.request.query_params)
    errors: dict[str, str] = {}
    try:
        chosen_filter: QueueFilter | None = filter_of(given)
    except BadInput as error:
        chosen_filter, errors = None, {"segment": forms.reason_of(error)}
    read = await asyncio.to_thread(_read, visit, given, chosen_filter)
    return visit.render(
        "queue.html",
        400 if errors else 200,
        given=given,
        queue=urlencode(given),
        skip=urlencode({**given, "after": read.counts.next_run_id})
        if read.counts and read.counts.next_run_id
        else "",
        start_over=urlencode({k: v for k, v in given.items() if k != "after"}),
        counts=read.counts,
        progress="" if read.counts is None else progress_words(read.counts),
        choices=read.choices,
        values=read.values,
        errors=errors,
        **read.parts,
    )
