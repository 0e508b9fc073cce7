"""What cost and usage read of runs: who ran, when, and the tokens their turns recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..domain.cost import RecordedTurn
from .db import Database, Read, Row
from .query import Where, chunks, marks
from .replay_json import USAGE

_FILTERS = {
    "run_id": "r.id = ?",
    "agent_id": "r.agent_id = ?",
    "conversation_id": "r.conversation_id = ?",
    "provider_id": "r.provider_id = ?",
    "model": "r.model = ?",
    "project_id": "r.project_id = ?",
}


def _usage(name: str) -> str:
    """A turn's usage figure from its run's output: by name, or by its place in a replay's
    compact usage (`replay_json.USAGE`)."""
    return (
        f"coalesce(json_extract(r.output, '$.usage.{name}'),"
        f" json_extract(r.output, '$.usage[{USAGE.index(name)}]'))"
    )


_COLUMNS = (
    "r.id, r.tenant_id, r.project_id, r.agent_id, r.agent_version, r.conversation_id, r.status,"
    " r.dry_run, r.replay_of, r.eval_run_id, r.created_at, r.completed_at, r.provider_id,"
    " r.model, r.asked_model, p.production_since,"
    f" {_usage('steps')} AS calls,"
    f" {_usage('promptTokens')} AS prompt_tokens,"
    f" {_usage('completionTokens')} AS completion_tokens,"
    f" {_usage('durationMs')} AS duration_ms"
)
_FROM = "FROM runs r LEFT JOIN projects p ON p.id = r.project_id"


def _turn(row: Row) -> RecordedTurn:
    """A run as cost and usage count it, with the class of run it was when it ran."""
    since = row["production_since"]
    if row["eval_run_id"]:
        run_class = "eval"
    elif row["replay_of"]:
        run_class = "replay"
    elif row["dry_run"]:
        run_class = "dry-run"
    elif since is not None and since <= row["created_at"]:
        run_class = "production"
    else:
        run_class = "staging"
    return RecordedTurn(
        run_id=row["id"],
        tenant_id=row["tenant_id"],
        project_id=row["project_id"],
        agent_id=row["agent_id"],
        agent_version=row["agent_version"],
        conversation_id=row["conversation_id"],
        status=row["status"],
        run_class=run_class,
        created_at=row["created_at"],
        ended_at=row["completed_at"],
        provider_id=row["provider_id"],
        model=row["model"],
        asked_model=row["asked_model"],
        calls=int(row["calls"] or 0),
        prompt_tokens=int(row["prompt_tokens"] or 0),
        completion_tokens=int(row["completion_tokens"] or 0),
        duration_ms=None if row["duration_ms"] is None else int(row["duration_ms"]),
    )


def runs_by_ids(
    db: Database, tenant_id: str, run_ids: Sequence[str], read: Read | None = None
) -> list[RecordedTurn]:
    """These runs, as `runs_between` reads them (in no particular order); through `read`
    when given (a scan's connection, `Database.scanning`, for a walk through many pages:
    an eval run's summary reads every replay's row, which would fill the reader's cache)."""
    found: list[RecordedTurn] = []
    for chunk in chunks(run_ids):
        places = marks(chunk)
        rows = (read or db.all)(
            f"SELECT {_COLUMNS} {_FROM} WHERE r.tenant_id = ? AND r.id IN ({places})",
            [tenant_id, *chunk],
        )
        found += [_turn(row) for row in rows]
    return found


def runs_between(
    db: Database,
    tenant_id: str,
    *,
    start: str | None,
    end: str | None,
    filters: Mapping[str, str | None],
) -> list[RecordedTurn]:
    """Runs that were running at some point in [start, end) (every one when both are None),
    newest first, with their project's `production_since` and their turn's usage."""
    where = Where("r.tenant_id = ?", tenant_id)
    if end is not None:
        where.add("r.created_at < ?", end)
    if start is not None:
        where.add("coalesce(r.completed_at, r.created_at) >= ?", start)
    where.named(filters, _FILTERS)
    rows = db.all(
        f"SELECT {_COLUMNS} {_FROM} WHERE {where}"
        " ORDER BY coalesce(r.completed_at, r.created_at) DESC, r.id DESC",
        where.params,
    )
    return [_turn(row) for row in rows]
