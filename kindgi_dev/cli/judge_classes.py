"""`kindgi judge-classes list|add|show|set|remove` (with `create`, `update`, `unregister`)."""

from __future__ import annotations

import click

from ..domain.json import JSON, JSONObject
from .command import Command, api_command
from .http import Api, in_path
from .judgments import drop_none, enum_value

ROLES = ("standard", "senior", "admin")
KINDS = ("user", "service")


def scope_options(function: Command) -> Command:
    """`--tenant` | `--project` | `--agent` (with `--project`)."""
    for option in reversed(
        [
            click.option("--tenant", is_flag=True, help="The whole tenant."),
            click.option("--project", help="One project."),
            click.option("--agent", help="One agent in --project."),
        ]
    ):
        function = option(function)
    return function


def restriction_options(function: Command) -> Command:
    """The flags of `assertableBy`: role, principal kinds, principal ids."""
    for option in reversed(
        [
            click.option("--min-reviewer-role", help="standard, senior or admin."),
            click.option("--principal-kind", multiple=True, help="user or service; repeatable."),
            click.option("--principal-id", multiple=True, help="A principal's id; repeatable."),
        ]
    ):
        function = option(function)
    return function


def scope_of(tenant: bool, project: str | None, agent: str | None) -> dict[str, str] | None:
    """The scope the flags name, or None when they name none."""
    if tenant and (project or agent):
        raise click.UsageError("--tenant goes alone, without --project or --agent")
    if agent and not project:
        raise click.UsageError("--agent needs --project=<id>")
    if tenant:
        return {"kind": "tenant"}
    if agent and project:
        return {"kind": "agent", "projectId": project, "agentId": agent}
    if project:
        return {"kind": "project", "projectId": project}
    return None


def restriction(
    role: str | None, kinds: tuple[str, ...], ids: tuple[str, ...]
) -> JSONObject | None:
    """`assertableBy` from the flags, or None when none is given."""
    for kind in kinds:
        enum_value(kind, "principal-kind", KINDS)
    body: JSONObject = {
        "minReviewerRole": enum_value(role, "min-reviewer-role", ROLES),
        "principalKinds": [*kinds] or None,
        "principalIds": [*ids] or None,
    }
    return drop_none(body) or None


def weight_value(text: str | None) -> float | None:
    """`--weight`: a number, 0 or more."""
    if text is None:
        return None
    try:
        weight = float(text)
    except ValueError:
        raise click.UsageError(f"--weight must be a number, got '{text}'") from None
    if weight < 0:
        raise click.UsageError("--weight must be 0 or more")
    return int(weight) if weight.is_integer() else weight


@click.group("judge-classes", help="Judge classes: named, weighted groups of judges.")
def judge_classes() -> None:
    """The judge-classes group."""


@api_command(judge_classes, "list", help="List live judge classes, newest first.")
@scope_options
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_classes(
    api: Api,
    tenant: bool,
    project: str | None,
    agent: str | None,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    scope = scope_of(tenant, project, agent) or {}
    params = {
        "scopeKind": scope.get("kind"),
        "projectId": scope.get("projectId"),
        "agentId": scope.get("agentId"),
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/judge-classes", params=params)


@api_command(judge_classes, "add", help="Create a judge class.")
@scope_options
@click.option("--name", help="The class's name, unique in its scope.")
@click.option("--weight", help="How much its judgments count (0 or more).")
@click.option("--description")
@restriction_options
def add(
    api: Api,
    tenant: bool,
    project: str | None,
    agent: str | None,
    name: str | None,
    weight: str | None,
    description: str | None,
    min_reviewer_role: str | None,
    principal_kind: tuple[str, ...],
    principal_id: tuple[str, ...],
) -> JSON:
    scope = scope_of(tenant, project, agent)
    if scope is None:
        raise click.UsageError(
            "Give a scope: --tenant, --project=<id>, or --agent=<id> --project=<id>"
        )
    if name is None:
        raise click.UsageError("--name=<name> is required")
    if weight is None:
        raise click.UsageError("--weight=<number> is required")
    body = {
        "scope": scope,
        "name": name,
        "weight": weight_value(weight),
        "description": description,
        "assertableBy": restriction(min_reviewer_role, principal_kind, principal_id),
    }
    return api.call("POST", "/v1/judge-classes", json=drop_none(body), idempotent=True)


@api_command(judge_classes, "show", help="One judge class, retired ones too.")
@click.argument("judge_class_id")
def show(api: Api, judge_class_id: str) -> JSON:
    return api.call("GET", f"/v1/judge-classes/{in_path(judge_class_id)}")


@api_command(judge_classes, "set", help="Change a class's weight, description or restriction.")
@click.argument("judge_class_id")
@click.option("--weight", help="How much its judgments count (0 or more).")
@click.option("--description")
@restriction_options
@click.option("--unrestricted", is_flag=True, help="Lift the restriction.")
def set_class(
    api: Api,
    judge_class_id: str,
    weight: str | None,
    description: str | None,
    min_reviewer_role: str | None,
    principal_kind: tuple[str, ...],
    principal_id: tuple[str, ...],
    unrestricted: bool,
) -> JSON:
    restricted = restriction(min_reviewer_role, principal_kind, principal_id)
    if restricted and unrestricted:
        raise click.UsageError("--unrestricted goes without the restriction flags")
    body: JSONObject = drop_none({"weight": weight_value(weight), "description": description})
    if restricted or unrestricted:
        body["assertableBy"] = restricted
    if not body:
        raise click.UsageError(
            "Give something to change: --weight, --description, a restriction, or --unrestricted"
        )
    return api.call(
        "PATCH", f"/v1/judge-classes/{in_path(judge_class_id)}", json=body, idempotent=True
    )


@api_command(judge_classes, "remove", help="Retire a judge class; its judgments keep it.")
@click.argument("judge_class_id")
def remove(api: Api, judge_class_id: str) -> JSON:
    api.call(
        "POST", f"/v1/judge-classes/{in_path(judge_class_id)}/unregister", json={}, idempotent=True
    )
    return {"judgeClassId": judge_class_id, "removed": True}


judge_classes.add_command(add, "create")
judge_classes.add_command(set_class, "update")
judge_classes.add_command(remove, "unregister")
