"""`/v1/projects`: the default project, list, get, create, rename, and production."""

from __future__ import annotations

from pydantic import ConfigDict, Field
from starlette.responses import Response

from ..domain.errors import NotFound
from ..domain.json import JSONObject
from ..domain.paging import Page
from ..services import projects
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .limits import MAX_KEY, MAX_NAME
from .routing import SHORT_WRITE_BYTES
from .wire import Omittable, WireModel, WirePage


class ProjectSpec(WireModel):
    """The body of `projects.create`."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    slug: str = Field(min_length=1, max_length=MAX_KEY)
    description: Omittable[str] = None
    org_id: Omittable[str] = None
    is_default: Omittable[bool] = None


class ProjectAnswer(WireModel):
    """A project as the contract shapes it."""

    model_config = ConfigDict(title="Project")

    id: str
    tenant_id: str
    org_id: str | None = None
    name: str
    slug: str
    is_default: bool
    description: str | None = None
    production_since: str | None = None
    created_at: str
    updated_at: str


class ProjectPatch(WireModel):
    """The body of `projects.update`: a field left out stays as it is."""

    name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    slug: str | None = Field(default=None, min_length=1, max_length=MAX_KEY)
    description: str | None = Field(default=None, max_length=MAX_NAME * 20)
    org_id: str | None = None


class ProjectProductionBody(WireModel):
    """The body of `projects.production.set`."""

    production: bool


class ProjectProductionAnswer(WireModel):
    """Whether a project is in production, and since when (`null` when it isn't)."""

    project_id: str
    production_since: str | None


class ProjectPage(WirePage[ProjectAnswer]):
    """A page of projects."""


class ProjectListQuery(WireModel):
    """Filters and paging of `projects.list`."""

    limit: int | None = None
    cursor: str | None = None
    org_id: str | None = None
    name_contains: str | None = None


class CreateResourceResult(WireModel):
    """What a create answers: the new id."""

    id: str


async def get_default(call: Call[NoBody, NoQuery]) -> projects.Project:
    return projects.get_default(call.ctx)


async def list_projects(call: Call[NoBody, ProjectListQuery]) -> Page[projects.Project]:
    q = call.query
    return projects.list_page(
        call.ctx, limit=q.limit, cursor=q.cursor, org_id=q.org_id, name_contains=q.name_contains
    )


async def get(call: Call[NoBody, NoQuery]) -> projects.Project:
    return projects.get(call.ctx, call.path["projectId"])


def create(call: Call[ProjectSpec, NoQuery]) -> CreateResourceResult:
    spec = call.body
    if spec.org_id:
        raise NotFound("org", spec.org_id)
    project_id = projects.create(
        call.ctx,
        name=spec.name,
        slug=spec.slug,
        description=spec.description,
        is_default=bool(spec.is_default),
    )
    return CreateResourceResult(id=project_id)


async def update(call: Call[ProjectPatch, NoQuery]) -> Response:
    patch = call.body
    if patch.org_id:
        raise NotFound("org", patch.org_id)
    projects.update(
        call.ctx,
        call.path["projectId"],
        name=patch.name,
        slug=patch.slug,
        description=patch.description,
    )
    return Response(status_code=204)


async def set_production(call: Call[ProjectProductionBody, NoQuery]) -> JSONObject:
    state = projects.set_production(call.ctx, call.path["projectId"], call.body.production)
    return {"project_id": state.project_id, "production_since": state.production_since}


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/projects/default",
        "projects.getDefault",
        get_default,
        "The default project.",
        response=ProjectAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/projects",
        "projects.list",
        list_projects,
        "List projects.",
        query=ProjectListQuery,
        response=ProjectPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/projects/{projectId}",
        "projects.get",
        get,
        "One project.",
        response=ProjectAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/projects",
        "projects.create",
        create,
        "Create a project.",
        body=ProjectSpec,
        response=CreateResourceResult,
        status=201,
        errors=(400, 401, 404, 409, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "PATCH",
        "/v1/projects/{projectId}",
        "projects.update",
        update,
        "Change a project's name, slug or description.",
        body=ProjectPatch,
        status=204,
        errors=(400, 401, 404, 409, 413),
    ),
    Endpoint(
        "PUT",
        "/v1/projects/{projectId}/production",
        "projects.production.set",
        set_production,
        "Put a project in production, or take it out.",
        body=ProjectProductionBody,
        response=ProjectProductionAnswer,
        errors=(400, 401, 404, 413),
    ),
]
