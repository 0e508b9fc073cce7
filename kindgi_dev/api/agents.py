"""`/v1/agents`: list, get, list versions, get a version; and the reads flows and tools share.

Agents, flows and tools are read the same way (the contract says "as `agents.list`"), so
`catalog_endpoints` declares the four operations of any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

from ..domain.catalog import Kind
from ..domain.errors import BadInput
from ..services import catalog
from .endpoint import Call, Endpoint, NoBody, NoQuery, Operation
from .wire import OpenModel, OpenObject, VersionsQuery, WireModel, WirePage


class CatalogListQuery(WireModel):
    """Filters and paging of `agents.list`, `flows.list` and `tools.list`."""

    limit: int | None = None
    cursor: str | None = None
    name: str | None = Field(default=None, description="Only ids starting with this.")
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)
    inherit: bool = True
    include_retired: bool = False


class CatalogGetQuery(WireModel):
    """The project a read is for (every project sees the pack's items)."""

    project_id: UUID | None = None


class ToolRef(WireModel):
    """A tool an agent may call, at a pinned version."""

    id: str = Field(min_length=1)
    version: str = Field(min_length=1)


class Agent(OpenModel):
    """An agent version (the contract's `Agent`; optional fields beyond these pass through)."""

    id: str
    version: str
    name: str
    description: str | None = None
    instructions: str | OpenObject
    capabilities: list[OpenObject]
    tools: list[ToolRef]
    retrieval: list[OpenObject]
    guardrails: list[str]
    preferred_provider: str | None = None
    preferred_model: str | None = None
    output: OpenObject | None = None
    unregistered_at: str | None = None


class AgentCollectionPage(WirePage[Agent]):
    """A page of agents."""


def check_scope(query: CatalogListQuery) -> None:
    """`scopeId` goes with `org` and `project` scopes and never with `tenant`: 400 otherwise."""
    needs_id = query.scope_kind in ("org", "project")
    if needs_id != (query.scope_id is not None):
        raise BadInput(
            "scopeId is required with scopeKind org or project, and not allowed otherwise.",
            code="scope-invalid",
        )


@dataclass(frozen=True)
class CatalogReads:
    """The handlers of one kind's four reads, the id taken from the path parameter `id_param`."""

    kind: Kind
    id_param: str

    async def list_items(self, call: Call[NoBody, CatalogListQuery]) -> object:
        """The latest version of each id, a page at a time."""
        q = call.query
        check_scope(q)
        found = catalog.list_page(
            call.ctx,
            self.kind,
            limit=q.limit,
            cursor=q.cursor,
            name=q.name,
            include_retired=q.include_retired,
        )
        return found

    async def get_latest(self, call: Call[NoBody, CatalogGetQuery]) -> object:
        """The highest active version."""
        return catalog.get(call.ctx, self.kind, call.path[self.id_param])

    async def list_versions(self, call: Call[NoBody, VersionsQuery]) -> object:
        """One id's versions, lowest semver first."""
        q = call.query
        found = catalog.list_versions(
            call.ctx,
            self.kind,
            call.path[self.id_param],
            limit=q.limit,
            cursor=q.cursor,
            include_tombstoned=q.include_tombstoned,
        )
        return found

    async def get_version(self, call: Call[NoBody, NoQuery]) -> object:
        """One version, unregistered or not."""
        return catalog.get(call.ctx, self.kind, call.path[self.id_param], call.path["version"])


def catalog_endpoints(
    kind: Kind,
    *,
    path: str,
    id_param: str,
    item: type[BaseModel],
    page: type[BaseModel],
) -> list[Operation]:
    """The four read operations of agents, flows or tools."""
    reads = CatalogReads(kind, id_param)
    plural = f"{kind}s"
    one = f"{path}/{{{id_param}}}"
    gone = (410,) if kind == "tool" else ()
    # declared apart: in a list[Operation] mypy reads each query as BaseModel, refusing handlers
    listed = Endpoint(
        "GET",
        path,
        f"{plural}.list",
        reads.list_items,
        f"List {plural}: the latest version of each.",
        query=CatalogListQuery,
        response=page,
        errors=(400, 401),
    )
    latest = Endpoint(
        "GET",
        one,
        f"{plural}.get",
        reads.get_latest,
        f"The latest active version of a {kind}.",
        query=CatalogGetQuery,
        response=item,
        errors=(400, 401, 404, *gone),
    )
    versions = Endpoint(
        "GET",
        f"{one}/versions",
        f"{plural}.listVersions",
        reads.list_versions,
        f"A {kind}'s versions, lowest semver first.",
        query=VersionsQuery,
        response=page,
        errors=(400, 401, 404),
    )
    version = Endpoint("GET", f"{one}/versions/{{version}}", f"{plural}.getVersion",
                       reads.get_version, f"One version of a {kind}, unregistered or not.",
                       response=item, errors=(401, 404))  # fmt: skip
    return [listed, latest, versions, version]


ENDPOINTS = catalog_endpoints(
    "agent", path="/v1/agents", id_param="agentId", item=Agent, page=AgentCollectionPage
)
