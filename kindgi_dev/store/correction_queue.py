"""The correction queue's reads: a corrector's finished runs still to correct, how many of
them it corrected, and how many live corrections each run of a list has."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.corrections import Corrector
from ..domain.segments import Segment
from ..domain.status import TERMINAL
from .db import Database
from .query import Where, chunks, marks


@dataclass(frozen=True)
class QueueFilter:
    """Which runs a queue holds: its agent or flow, version, project and one segment level."""

    subject: str | None = None
    version: str | None = None
    project_id: str | None = None
    segment: Segment | None = None


@dataclass(frozen=True)
class QueueCounts:
    """How many runs the queue holds, how many of them the corrector corrected, and the next
    one to correct (None when none is left)."""

    runs: int
    corrected: int
    next_run_id: str | None


_MINE = (
    "EXISTS (SELECT 1 FROM corrections c WHERE c.run_id = runs.id AND c.corrector_kind = ? "
    "AND c.corrector_id = ? AND c.participant_id = ? AND c.replaced_by IS NULL)"
)


def _where(tenant_id: str, given: QueueFilter) -> Where:
    """The queue's runs: finished, with an output kept, not replays, and as filtered."""
    where = Where("tenant_id = ?", tenant_id)
    where.one_of("status", sorted(TERMINAL))
    where.add("output IS NOT NULL AND content_erased_at IS NULL AND replay_of IS NULL")
    if given.subject is not None:
        where.add("coalesce(agent_id, flow_id) = ?", given.subject)
    if given.version is not None:
        where.add(
            "CASE WHEN agent_id IS NULL THEN flow_version ELSE agent_version END = ?",
            given.version,
        )
    if given.project_id is not None:
        where.add("project_id = ?", given.project_id)
    if given.segment is not None:
        where.add(
            "EXISTS (SELECT 1 FROM json_each(runs.segments) s WHERE "
            "json_extract(s.value, '$.key') = ? AND json_extract(s.value, '$.value') = ?)",
            given.segment.key,
            given.segment.value,
        )
    return where


def counts(
    db: Database,
    tenant_id: str,
    corrector: Corrector,
    given: QueueFilter,
    *,
    newest_first: bool,
    after: tuple[str, str] | None = None,
) -> QueueCounts:
    """The queue's size, what the corrector corrected of it, and its next run in order (past
    `after`, the (created_at, id) of a run skipped, when given)."""
    where = _where(tenant_id, given)
    mine = (corrector.kind, corrector.id, corrector.participant_id)
    row = db.one(
        f"SELECT count(*) AS runs, coalesce(sum({_MINE}), 0) AS corrected FROM runs WHERE {where}",
        [*mine, *where.params],
    )
    order = "DESC" if newest_first else "ASC"
    past = f" AND (created_at, id) {'<' if newest_first else '>'} (?, ?)" if after else ""
    following = db.one(
        f"SELECT id FROM runs WHERE {where} AND NOT {_MINE}{past} "
        f"ORDER BY created_at {order}, id {order} LIMIT 1",
        [*where.params, *mine, *(after or ())],
    )
    runs, corrected = (row["runs"], row["corrected"]) if row else (0, 0)
    return QueueCounts(runs, corrected, following["id"] if following else None)


def corrections_per_run(
    db: Database, run_ids: Sequence[str], corrector: Corrector
) -> dict[str, tuple[int, bool]]:
    """For each run that has live corrections: how many, and whether one is the corrector's."""
    found: dict[str, tuple[int, bool]] = {}
    ids = list(run_ids)
    for chunk in chunks(ids):
        rows = db.all(
            "SELECT run_id, count(*) AS n, max(corrector_kind = ? AND corrector_id = ? "
            "AND participant_id = ?) AS mine FROM corrections WHERE replaced_by IS NULL "
            f"AND run_id IN ({marks(chunk)}) GROUP BY run_id",
            [corrector.kind, corrector.id, corrector.participant_id, *chunk],
        )
        found.update((row["run_id"], (row["n"], bool(row["mine"]))) for row in rows)
    return found
