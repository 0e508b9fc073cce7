"""`/v1/capabilities`: the features an agent can require, and the providers' models that
have each."""

from __future__ import annotations

from typing import Any

from ..domain.capabilities import Capability, catalog
from ..domain.errors import NotFound
from ..domain.paging import clamp_limit, decode_cursor, encode_cursor
from ..services import providers
from ..services.context import Context
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WireModel, WirePage


class CapabilityProvider(WireModel):
    """A provider with models that have the feature."""

    provider_id: str
    models: list[str]


class CapabilityDescriptor(WireModel):
    """One capability: `feature:<feature>`, what it means, which models have it."""

    id: str
    feature: str
    description: str
    kind: str
    providers: list[CapabilityProvider]


class CapabilityPage(WirePage[CapabilityDescriptor]):
    """A page of capabilities, in the catalog's order."""


class CapabilityQuery(WireModel):
    """`feature` keeps the capabilities whose feature starts with it."""

    limit: int | None = None
    cursor: str | None = None
    feature: str | None = None


def capability(found: Capability) -> dict[str, Any]:
    """A capability as the wire shapes it."""
    return {
        "id": found.id,
        "feature": found.feature,
        "description": found.description,
        "kind": found.kind,
        "providers": [{"provider_id": p.provider_id, "models": p.models} for p in found.providers],
    }


def _all(ctx: Context, prefix: str = "") -> list[Capability]:
    return catalog((p.features() for p in providers.configured(ctx)), prefix)


async def list_capabilities(call: Call[NoBody, CapabilityQuery]) -> dict[str, Any]:
    q = call.query
    found = _all(call.ctx, q.feature or "")
    start = int((decode_cursor(q.cursor) or [0])[0])
    limit = clamp_limit(q.limit)
    page = found[start : start + limit]
    more = start + limit < len(found)
    answer: dict[str, Any] = {"data": [capability(c) for c in page], "has_more": more}
    if more:
        answer["next_cursor"] = encode_cursor([start + limit])
    return answer


async def get(call: Call[NoBody, NoQuery]) -> dict[str, Any]:
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
