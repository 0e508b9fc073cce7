"""What cost and usage read of runs: who ran, when, and the tokens their turns recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .db import Database, Row
from .query import Where

_FILTERS = {
    "run_id": "r.id = ?",
    "agent_id": "r.agent_id = ?",
    "conversation_id": "r.conversation_id = ?",
    "provider_id": "r.provider_id = ?",
    "model": "r.model = ?",
    "project_id": "r.project_id = ?",
}


_COLUMNS = (
    "r.id, r.tenant_id, r.project_id, r.agent_id, r.agent_version, r.conversation_id, r.status,"
    " r.dry_run, r.replay_of, r.eval_run_id, r.created_at, r.completed_at, r.provider_id,"
    " r.model, r.asked_model, p.production_since,"
    " json_extract(r.output, '$.usage.steps') AS calls,"
    " json_extract(r.output, '$.usage.promptTokens') AS prompt_tokens,"
    " json_extract(r.output, '$.usage.completionTokens') AS completion_tokens,"
    " json_extract(r.output, '$.usage.durationMs') AS duration_ms"
)
_FROM = "FROM runs r LEFT JOIN projects p ON p.id = r.project_id"


def runs_by_ids(db: Database, tenant_id: str, run_ids: Sequence[str]) -> list[Row]:
    """These runs, as `runs_between` reads them (in no particular order)."""
    found: list[Row] = []
    for start in range(0, len(run_ids), 500):
        chunk = list(run_ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        found += db.all(
            f"SELECT {_COLUMNS} {_FROM} WHERE r.tenant_id = ? AND r.id IN ({marks})",
            [tenant_id, *chunk],
        )
    return found


def runs_between(
    db: Database,
    tenant_id: str,
    *,
    start: str | None,
    end: str | None,
    filters: Mapping[str, str | None],
) -> list[Row]:
    """Runs that were running at some point in [start, end) (every one when both are None),
    newest first, with their project's `production_since` and their turn's usage."""
    where = Where("r.tenant_id = ?", tenant_id)
    if end is not None:
        where.add("r.created_at < ?", end)
    if start is not None:
        where.add("coalesce(r.completed_at, r.created_at) >= ?", start)
    where.named(filters, _FILTERS)
    return db.all(
        f"SELECT {_COLUMNS} {_FROM} WHERE {where}"
        " ORDER BY coalesce(r.completed_at, r.created_at) DESC, r.id DESC",
        where.params,
    )
