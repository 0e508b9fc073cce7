"""`/v1/capabilities`: the features an agent can require, and the providers' models that
have each."""

from __future__ import annotations

from ..domain.capabilities import Capability, catalog
from ..domain.errors import NotFound
from ..domain.paging import Page, page_of
from ..services import providers
from ..services.context import Context
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WireModel, WirePage


class CapabilityProviderAnswer(WireModel):
    """A provider with models that have the feature."""

    provider_id: str
    models: list[str]


class CapabilityDescriptor(WireModel):
    """One capability: `feature:<feature>`, what it means, which models have it."""

    id: str
    feature: str
    description: str
    kind: str
    providers: list[CapabilityProviderAnswer]


class CapabilityPage(WirePage[CapabilityDescriptor]):
    """A page of capabilities, in the catalog's order."""


class CapabilityQuery(WireModel):
    """`feature` keeps the capabilities whose feature starts with it."""

    limit: int | None = None
    cursor: str | None = None
    feature: str | None = None


def capability(found: Capability) -> CapabilityDescriptor:
    """A capability as the wire shapes it."""
    return CapabilityDescriptor(
        id=found.id,
        feature=found.feature,
        description=found.description,
        kind=found.kind,
        providers=[CapabilityProviderAnswer(provider_id=p.provider_id, models=list(p.models))
                   for p in found.providers],
    )  # fmt: skip


def _all(ctx: Context, prefix: str = "") -> list[Capability]:
    return catalog((p.features() for p in providers.configured(ctx)), prefix)


async def list_capabilities(call: Call[NoBody, CapabilityQuery]) -> Page[CapabilityDescriptor]:
    q = call.query
    found = [capability(c) for c in _all(call.ctx, q.feature or "")]
    return page_of(found, q.limit, q.cursor)


async def get(call: Call[NoBody, NoQuery]) -> CapabilityDescriptor:
    capability_id = call.path["capabilityId"]
    for found in _all(call.ctx):
        if found.id == capability_id:
            return capability(found)
    raise NotFound("capability", capability_id)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/capabilities",
        "capabilities.list",
        list_capabilities,
        "The features an agent can require, and the models here that have each.",
        query=CapabilityQuery,
        response=CapabilityPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/capabilities/{capabilityId}",
        "capabilities.get",
        get,
        "One capability (`feature:<feature>`).",
        response=CapabilityDescriptor,
        errors=(401, 404),
    ),
]
