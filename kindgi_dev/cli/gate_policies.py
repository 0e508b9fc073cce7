"""`kindgi gate-policies list|show|versions|publish|unregister|reinstate`: what a promotion
of an agent must show before a version goes live for a scope."""

from __future__ import annotations

import click
from typing_extensions import Unpack

from ..domain.json import JSON
from .answers import member
from .command import api_command, json_arg
from .http import Api
from .output import Column
from .releases import ScopeFlags, scope_cell, scope_of, scope_options, scope_query

COLUMNS: list[Column] = [
    ("ID", lambda p: p.get("id")),
    ("VERSION", lambda p: p.get("version")),
    ("AGENT", lambda p: p.get("agentId")),
    ("SCOPE", lambda p: scope_cell(member(p, "scope"))),
    ("UNREGISTERED", lambda p: p.get("unregisteredAt")),
]
PATH = "/v1/gate-policies"


@click.group("gate-policies", help="Gate policies: what a promotion must show before a version "
             "goes live (list / show / versions / publish / unregister / reinstate).")  # fmt: skip
def gate_policies() -> None:
    """The gate-policies group."""


@api_command(gate_policies, "list", columns=COLUMNS,
             help="Each gate policy's latest active version, of an agent or a scope.")  # fmt: skip
@click.option("--agent", help="Only the policies gating this agent.")
@scope_options
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_policies(
    api: Api, agent: str | None, limit: int | None, cursor: str | None, **flags: Unpack[ScopeFlags]
) -> JSON:
    query = {**scope_query(scope_of(**flags, required=False)), "agentId": agent}
    return api.call("GET", PATH, params={**query, "limit": limit, "cursor": cursor})


@api_command(gate_policies, "show", help="A gate policy's latest active version, or one version.")
@click.argument("policy_id")
@click.argument("version", required=False)
def show(api: Api, policy_id: str, version: str | None) -> JSON:
    if version is None:
        return api.call("GET", f"{PATH}/{policy_id}")
    return api.call("GET", f"{PATH}/{policy_id}/versions/{version}")


@api_command(gate_policies, "versions", columns=COLUMNS,
             help="Every version of a gate policy, unregistered ones too.")  # fmt: skip
@click.argument("policy_id")
def versions(api: Api, policy_id: str) -> JSON:
    return api.call("GET", f"{PATH}/{policy_id}/versions")


@api_command(gate_policies, "publish", help="Publish a gate policy, or a new version of one "
             "(admin): the checks a promotion of the agent for the scope must pass.")  # fmt: skip
@click.argument("policy_id")
@click.option("--policy-version", required=True, help="The version to publish (semver).")
@click.option("--agent", required=True, help="The agent the policy gates.")
@scope_options
@click.option("--spec", required=True, help="The checks, as JSON, inline or @<file>.")
@click.option("--description", help="What the policy is for.")
def publish(api: Api, policy_id: str, policy_version: str, agent: str, spec: str,
            description: str | None, **flags: Unpack[ScopeFlags]) -> JSON:  # fmt: skip
    scope = scope_of(**flags, required=True)
    body = {"id": policy_id, "version": policy_version, "agentId": agent, "scope": scope,
            "spec": json_arg(spec, "--spec")}  # fmt: skip
    if description is not None:
        body["description"] = description
    return api.call("POST", PATH, json=body, idempotent=True)


@api_command(gate_policies, "unregister", help="Stop a gate policy version applying.")
@click.argument("policy_id")
@click.argument("version")
def unregister(api: Api, policy_id: str, version: str) -> JSON:
    return api.call("POST", f"{PATH}/{policy_id}/versions/{version}/unregister")


@api_command(gate_policies, "reinstate", help="Make an unregistered version apply again.")
@click.argument("policy_id")
@click.argument("version")
def reinstate(api: Api, policy_id: str, version: str) -> JSON:
    return api.call("POST", f"{PATH}/{policy_id}/versions/{version}/reinstate")
