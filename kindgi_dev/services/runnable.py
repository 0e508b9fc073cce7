"""Which registered versions can run now: every indexed agent or flow version, as long as
the pack still serves the tool versions it pins (a pack serves tool versions side by side).

A version whose pinned tools are gone is refused, naming each missing `tool@version`, before
anything is written: running it with other tool versions would not be that version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain.errors import Conflict, NotFound
from ..domain.flows import FlowDefinition
from . import catalog
from .context import Context

NOT_RUNNABLE = "version-not-runnable"


def serves(ctx: Context, tool_id: str, version: str | None) -> bool:
    """Whether the pack serves this tool version (any version when None): registered and not
    unregistered, and in the pack's current index when a pack runs."""
    try:
        manifest = catalog.get_tool(ctx, tool_id, version)
    except NotFound:
        return False
    if manifest.get("unregisteredAt"):
        return False
    runtime = ctx.runtime
    return runtime is None or runtime.tool_manifest(tool_id, version) is not None


def missing_tools(ctx: Context, agent: Mapping[str, Any]) -> list[str]:
    """The `tool@version` pins of an agent version the pack no longer serves."""
    missing = []
    for ref in agent.get("tools") or []:
        tool_id, version = str(ref.get("id")), ref.get("version")
        if not serves(ctx, tool_id, version):
            missing.append(f"{tool_id}@{version}" if version else tool_id)
    return missing


def why_not(ident: str, version: str, missing: list[str]) -> str:
    """The refusal's words: what can't run, and each pin that is gone."""
    pins = " and ".join(missing)
    return f"{ident} {version} can't run: it pins {pins}, which the pack no longer serves."


def refusal(ctx: Context, ident: str, version: str, missing: list[str], **details: Any) -> Conflict:
    """409 `version-not-runnable`, naming each pin that is gone (and why the pack serves
    nothing, when it doesn't now)."""
    message = why_not(ident, version, missing)
    problem = ctx.runtime.not_ready() if ctx.runtime is not None else None
    if problem is not None:
        message += f" The pack serves no tools now: {problem}."
    return Conflict(message, code=NOT_RUNNABLE, version=version, missing=missing, **details)


def agent(ctx: Context, agent_id: str, version: str | None = None) -> dict[str, Any]:
    """An agent version that can run (the latest active one when none is named); 404
    `agent-not-found`, 409 `version-not-runnable` naming the tool versions that are gone."""
    manifest = catalog.get_agent(ctx, agent_id, version)
    missing = missing_tools(ctx, manifest)
    if missing:
        raise refusal(ctx, manifest["id"], manifest["version"], missing, agentId=manifest["id"])
    return manifest


def flow_missing(
    ctx: Context, flow: FlowDefinition, agents: Mapping[str, str], tools: Mapping[str, str]
) -> list[str]:
    """What a flow version (with `agents`/`tools` swapped to other versions) pins that the
    pack no longer serves: its tool nodes' versions, and its agent steps' tool pins. A node
    whose tool or agent isn't registered at all is the flow's own failure when it runs."""
    missing: list[str] = []
    for node in _nodes(flow):
        target = node.target_id or ""
        if node.kind == "tool":
            version = tools.get(target) or node.pinned_version
            if version is not None and not serves(ctx, target, version):
                missing.append(f"{target}@{version}")
        elif node.kind == "agent":
            try:
                step = catalog.get_agent(ctx, target, agents.get(target) or node.pinned_version)
            except NotFound:
                continue
            missing += [pin for pin in missing_tools(ctx, step) if pin not in missing]
    return missing


def _nodes(flow: FlowDefinition) -> list[Any]:
    """The flow's nodes, a loop's body's included."""
    found = []
    for node in flow.nodes:
        found.append(node)
        if node.kind == "loop":
            found += _nodes(FlowDefinition.loop_body(node))
    return found


def flow(
    ctx: Context,
    flow_id: str,
    version: str | None = None,
    agents: Mapping[str, str] | None = None,
    tools: Mapping[str, str] | None = None,
) -> FlowDefinition:
    """A flow version that can run with these swaps; 404 `flow-not-found`, 409
    `version-not-runnable` naming the tool versions that are gone."""
    found = FlowDefinition.from_manifest(catalog.get_flow(ctx, flow_id, version))
    return check_flow(ctx, found, agents, tools)


def check_flow(
    ctx: Context,
    found: FlowDefinition,
    agents: Mapping[str, str] | None = None,
    tools: Mapping[str, str] | None = None,
) -> FlowDefinition:
    """A flow version already read, when it can run with these swaps (409 as `flow`)."""
    missing = flow_missing(ctx, found, agents or {}, tools or {})
    if missing:
        raise refusal(ctx, found.id, found.version, missing, flowId=found.id)
    return found
