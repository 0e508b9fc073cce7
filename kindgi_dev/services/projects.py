"""Projects: read the default one, list, get, and create."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from ..domain.errors import Conflict, NotFound
from ..domain.paging import Page, fetch_page
from ..domain.time import now_iso
from ..store import projects
from ..store.projects import Project as Project  # the record services hand out
from .context import Context


@dataclass(frozen=True)
class ProjectProduction:
    """Whether a project is in production: since when, or None."""

    project_id: str
    production_since: str | None


def get_default(ctx: Context) -> Project:
    """The one project with `isDefault: true`."""
    found = projects.get_default(ctx.db, ctx.tenant_id)
    if found is None:
        raise NotFound("project", "default")
    return found


def get(ctx: Context, project_id: str) -> Project:
    """One project; 404 `project-not-found`."""
    found = projects.get(ctx.db, project_id)
    if found is None or found.tenant_id != ctx.tenant_id:
        raise NotFound("project", project_id)
    return found


def exists(ctx: Context, project_id: str) -> bool:
    """Whether the tenant has this project."""
    found = projects.get(ctx.db, project_id)
    return found is not None and found.tenant_id == ctx.tenant_id


def require(ctx: Context, project_id: str | None) -> str:
    """The id of an existing project, or of the default one when none is named."""
    if project_id is None:
        return get_default(ctx).id
    return get(ctx, project_id).id


def list_page(
    ctx: Context,
    *,
    limit: int | None,
    cursor: str | None,
    org_id: str | None,
    name_contains: str | None,
) -> Page[Project]:
    """A page of projects, newest first."""
    return fetch_page(
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
        position=lambda project: (project.created_at, project.id),
    )


def create(
    ctx: Context,
    *,
    name: str,
    slug: str,
    description: str | None = None,
    org_id: str | None = None,
    is_default: bool = False,
) -> str:
    """Create a project; 409 when the slug is taken or a second default is asked for."""
    with ctx.db.transaction():
        if is_default and projects.get_default(ctx.db, ctx.tenant_id) is not None:
            raise Conflict(
                "This tenant already has a default project.",
                code="project-default-already-exists",
            )
        if projects.slug_taken(ctx.db, ctx.tenant_id, org_id, slug):
            raise Conflict(f'A project with slug "{slug}" exists.', code="slug-conflict")
        now = now_iso()
        project_id = str(uuid.uuid4())
        project = Project(project_id, ctx.tenant_id, name, slug, is_default, now, now)
        projects.insert(ctx.db, replace(project, org_id=org_id, description=description))
    return project_id


def update(
    ctx: Context,
    project_id: str,
    *,
    name: str | None = None,
    slug: str | None = None,
    description: str | None = None,
) -> None:
    """Change a project's name, slug or description (a field not given stays); 404 for an
    unknown project, 409 `slug-conflict` when another project has the slug."""
    with ctx.db.transaction():
        project = get(ctx, project_id)
        if slug is not None and projects.slug_taken(
            ctx.db, ctx.tenant_id, project.org_id, slug, besides=project.id
        ):
            raise Conflict(f'A project with slug "{slug}" exists.', code="slug-conflict")
        given = {"name": name, "slug": slug, "description": description}
        changes: dict[str, str] = {k: v for k, v in given.items() if v is not None}
        if any(getattr(project, k) != v for k, v in changes.items()):
            projects.update(ctx.db, project.id, {**changes, "updated_at": now_iso()})


def set_production(ctx: Context, project_id: str, production: bool) -> ProjectProduction:
    """Put a project in production or take it out; setting what is set keeps the first
    `productionSince`."""
    with ctx.db.transaction():
        project = get(ctx, project_id)
        since = project.production_since
        if production and since is None:
            since = now_iso()
            projects.update(ctx.db, project.id, {"production_since": since, "updated_at": since})
        elif not production and since is not None:
            since = None
            projects.update(ctx.db, project.id, {"production_since": None, "updated_at": now_iso()})
    return ProjectProduction(project.id, since)
