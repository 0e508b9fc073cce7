"""A correction queue as its address says it (`?agent=…&version=…&project=…&segment=…&order=…`),
carried by the correct form so that saving opens the queue's next run; and its progress in
words."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode

from ..services import correction_queue
from ..services.correction_queue import QueueCounts, QueueFilter

FIELDS = ("agent", "version", "project", "segment")
"""The queue's filters; `after` (a run skipped) and `order` say where in it to go on."""
ORDERS = ("oldest", "newest")


def chosen(params: Mapping[str, str]) -> dict[str, str]:
    """The queue's filters given (stripped, empty ones left out), the run skipped last
    (`after`), and its order (oldest first unless `newest`)."""
    given = {name: params.get(name, "").strip() for name in (*FIELDS, "after")}
    order = "newest" if params.get("order") == "newest" else "oldest"
    return {**{name: value for name, value in given.items() if value}, "order": order}


def queue_query(text: str) -> str | None:
    """The query string of the queue a form came from (None when it came from none), with
    only the queue's own parameters in it."""
    if not text:
        return None
    return urlencode(chosen(dict(parse_qsl(text, keep_blank_values=True))))


def filter_of(given: Mapping[str, str]) -> QueueFilter:
    """The services' filter for the chosen parameters; a segment that isn't `key=value` is
    refused naming `segment`."""
    return QueueFilter(
        subject=given.get("agent"),
        version=given.get("version"),
        project_id=given.get("project"),
        segment=correction_queue.segment_of(given.get("segment", "")),
    )


def _runs(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"


def progress_words(counts: QueueCounts) -> str:
    """How far through the queue the caller is, in words."""
    if counts.runs == 0:
        return "No finished runs are in this queue."
    if counts.corrected == counts.runs:
        every = "The 1 run" if counts.runs == 1 else f"All {counts.runs} runs"
        return f"{every} in this queue {'is' if counts.runs == 1 else 'are'} corrected."
    return f"{counts.corrected} of {_runs(counts.runs)} corrected in this queue."
