"""Projects: read the default one, list, get, and create."""

from __future__ import annotations

import uuid
from typing import Any

from ..domain.errors import Conflict, NotFound
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import projects
from .context import Context


def get_default(ctx: Context) -> dict[str, Any]:
    """The one project with `isDefault: true`."""
    row = projects.get_default(ctx.db, ctx.tenant_id)
    if row is None:
        raise NotFound("project", "default")
    return projects.to_wire(row)


def get(ctx: Context, project_id: str) -> dict[str, Any]:
    """One project; 404 `project-not-found`."""
    row = projects.get(ctx.db, project_id)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        raise NotFound("project", project_id)
    return projects.to_wire(row)


def require(ctx: Context, project_id: str | None) -> str:
    """The id of an existing project, or of the default one when none is named."""
    if project_id is None:
        return str(get_default(ctx)["id"])
    return str(get(ctx, project_id)["id"])


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    org_id: str | None,
    name_contains: str | None,
) -> Page[dict[str, Any]]:
    """A page of projects, newest first."""
    page = fetch_page(
        lambda size, after: projects.list_page(
            ctx.db,
            ctx.tenant_id,
            limit=size,
            after=after,
            org_id=org_id,
            name_contains=name_contains,
        ),
        limit=limit,
        cursor=cursor,
        position=lambda row: (row["created_at"], row["id"]),
    )
    return page.map(projects.to_wire)


def create(ctx: Context, spec: dict[str, Any]) -> str:
    """Create a project; 409 when the slug is taken or a second default is asked for."""
    with ctx.db.transaction():
        if spec.get("isDefault") and projects.get_default(ctx.db, ctx.tenant_id) is not None:
            raise Conflict(
                "This tenant already has a default project.",
                code="project-default-already-exists",
            )
        if projects.slug_taken(ctx.db, ctx.tenant_id, spec.get("orgId"), spec["slug"]):
            raise Conflict(f'A project with slug "{spec["slug"]}" exists.', code="slug-conflict")
        now = now_iso()
        project_id = str(uuid.uuid4())
        projects.insert(
            ctx.db,
            {
                **spec,
                "id": project_id,
                "tenantId": ctx.tenant_id,
                "createdAt": now,
                "updatedAt": now,
            },
        )
    return project_id
