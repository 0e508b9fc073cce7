"""`/v1/flows`: list, get, list versions, get a version (read as agents are)."""

from __future__ import annotations

from pydantic import Field

from .agents import catalog_endpoints
from .wire import OpenModel, OpenObject, WirePage


class Flow(OpenModel):
    """A flow version (the contract's `Flow`; optional fields beyond these pass through)."""

    id: str
    version: str
    name: str | None = None
    description: str | None = None
    nodes: list[OpenObject]
    edges: list[OpenObject]
    max_parallelism: int | None = None
    metadata: OpenObject | None = None
    unregistered_at: str | None = None
    output: OpenObject | None = Field(default=None, exclude=True)


class FlowCollectionPage(WirePage[Flow]):
    """A page of flows."""


ENDPOINTS = catalog_endpoints(
    "flow", path="/v1/flows", id_param="flowId", item=Flow, page=FlowCollectionPage
)
