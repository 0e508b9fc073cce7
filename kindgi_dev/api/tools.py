"""`/v1/tools`: list, get (410 `tool-gone` when every version is unregistered), versions."""

from __future__ import annotations

from pydantic import Field

from .agents import catalog_endpoints
from .wire import OpenModel, OpenObject, WirePage


class ToolEffect(OpenModel):
    """What a tool does to the world: `reads`, `writes`, `network`, …"""

    kind: str
    resource: str | None = None
    notes: str | None = None


class Tool(OpenModel):
    """A tool version (the contract's `Tool`; optional fields beyond these pass through)."""

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    version: str | None = None
    input: OpenObject
    output: OpenObject
    effects: list[ToolEffect] | None = None
    mutating: bool | None = None
    needs_approval_when_unattended: bool | None = None
    unregistered_at: str | None = None


class ToolVersionCollectionPage(WirePage[Tool]):
    """A page of tools (or of one tool's versions)."""


ENDPOINTS = catalog_endpoints(
    "tool", path="/v1/tools", id_param="toolId", item=Tool, page=ToolVersionCollectionPage
)
