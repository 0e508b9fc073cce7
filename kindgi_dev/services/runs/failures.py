"""A project's failed runs, grouped by cause and version, for `GET /v1/runs/failures`."""

from __future__ import annotations

from ...domain.errors import ValidationFailed
from ...domain.failures import FailureGroups, group_failures, group_keys
from ...domain.paging import clamp_limit
from ...store import runs as run_store
from .. import projects
from ..context import Context


def failures(
    ctx: Context,
    project_id: str,
    start: str,
    end: str,
    *,
    agent_id: str | None = None,
    flow_id: str | None = None,
    group_by: str | None = None,
    limit: int | None = None,
) -> FailureGroups:
    """The project's failures in [start, end]; 404 for an unknown project, 400 for a window
    that ends before it starts."""
    keys = group_keys(group_by)
    project = projects.get(ctx, project_id).id
    if end < start:
        raise ValidationFailed("to", "is before from")
    failed = run_store.failed_between(
        ctx.db, ctx.tenant_id, project, start, end, agent_id=agent_id, flow_id=flow_id
    )
    return group_failures(failed, start=start, end=end, keys=keys, limit=clamp_limit(limit))
