"""`/v1/tenant`: the workspace this instance is, read and renamed."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from starlette.responses import Response

from ..services import tenant
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WireModel

TENANT_SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class TenantAnswer(WireModel):
    """The tenant: its id, name and slug, and that it may put projects in production."""

    id: str
    name: str
    slug: str
    created_at: str
    updated_at: str
    production_allowed: bool
    state: Literal["active"]


class TenantPatch(WireModel):
    """A new name, a new slug, or both; a field left out stays as it is."""

    name: str | None = Field(default=None, min_length=1, max_length=100)
    slug: str | None = Field(default=None, max_length=63, pattern=TENANT_SLUG)


async def get(call: Call[NoBody, NoQuery]) -> tenant.Tenant:
    return tenant.get(call.ctx)


async def rename(call: Call[TenantPatch, NoQuery]) -> Response:
    tenant.rename(call.ctx, name=call.body.name, slug=call.body.slug)
    return Response(status_code=204)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/tenant",
        "tenant.get",
        get,
        "The tenant this instance is.",
        response=TenantAnswer,
        errors=(401,),
    ),
    Endpoint(
        "PATCH",
        "/v1/tenant",
        "tenant.update",
        rename,
        "Rename the tenant: its name, its slug, or both.",
        body=TenantPatch,
        status=204,
        errors=(400, 401, 413),
    ),
]
