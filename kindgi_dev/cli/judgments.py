"""`kindgi judgments add|list|show|remove` (`unregister` is `remove`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import click

from ..domain.json import JSON
from .command import Command, api_command
from .http import Api, in_path

Value = TypeVar("Value")


def require(value: str | None, flag: str, placeholder: str) -> str:
    """A required string flag's value, or the real CLI's usage error."""
    if value is None:
        raise click.UsageError(f"--{flag}=<{placeholder}> is required")
    return value


def rank_value(text: str | None) -> int | None:
    """`--rank`: an integer, 0 or more."""
    if text is None:
        return None
    try:
        rank = int(text)
    except ValueError:
        raise click.UsageError(f"--rank must be an integer, got '{text}'") from None
    if rank < 0:
        raise click.UsageError("--rank must be 0 or more")
    return rank


def yes_or_no(yes: bool, no: bool) -> bool:
    """True for `--yes`, False for `--no`; a usage error unless exactly one is given."""
    if yes == no:
        raise click.UsageError("Give exactly one of --yes or --no")
    return yes


def enum_value(value: str | None, flag: str, allowed: tuple[str, ...]) -> str | None:
    """An enum flag's value, or `--<f> must be one of a, b, got "<v>"`."""
    if value is not None and value not in allowed:
        raise click.UsageError(f'--{flag} must be one of {", ".join(allowed)}, got "{value}"')
    return value


def drop_none(body: Mapping[str, Value]) -> dict[str, Value]:
    """A body without its absent fields."""
    return {k: v for k, v in body.items() if v is not None}


def item_options(function: Command) -> Command:
    """The flags naming one judged item: run, key, pointer, rank, verdict, reason."""
    for option in reversed(
        [
            click.option("--run", help="The run's id."),
            click.option("--item", help="The item's stable key, such as an article's id."),
            click.option("--pointer", help='Where the item is in the output ("" = all of it).'),
            click.option("--rank", help="The item's place in its list, 0 first."),
            click.option("--yes", is_flag=True, help="The item was right there."),
            click.option("--no", is_flag=True, help="The item was wrong there."),
            click.option("--reason", help="Why (at most 4,000 characters)."),
            click.option("--participant", help="The app's end user this is for."),
        ]
    ):
        function = option(function)
    return function


@click.group("judgments", help="Judgments: yes or no on one item of a run's output.")
def judgments() -> None:
    """The judgments group."""


@api_command(judgments, "add", help="Judge one item of a finished run's output.")
@item_options
@click.option("--class", "judge_class", help="The judge class to judge under.")
def add(
    api: Api,
    run: str | None,
    item: str | None,
    pointer: str | None,
    rank: str | None,
    yes: bool,
    no: bool,
    reason: str | None,
    participant: str | None,
    judge_class: str | None,
) -> JSON:
    body = {
        "runId": require(run, "run", "run-id"),
        "item": drop_none(
            {"key": require(item, "item", "key"), "pointer": pointer, "rank": rank_value(rank)}
        ),
        "verdict": "yes" if yes_or_no(yes, no) else "no",
        "reason": reason,
        "judgeClassId": judge_class,
        "participantId": participant,
    }
    return api.call("POST", "/v1/judgments", json=drop_none(body), idempotent=True)


@api_command(judgments, "list", help="List live judgments, newest first.")
@click.option("--run", help="Only this run's.")
@click.option("--agent", help="Only runs of this agent.")
@click.option("--agent-version", help="Only runs of this agent version (needs --agent).")
@click.option("--flow", help="Only runs of this flow.")
@click.option("--verdict", help="yes or no.")
@click.option("--class", "judge_class", help="Only this judge class's.")
@click.option("--participant", help="Only those made for this end user.")
@click.option("--project", help="Only this project's.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_judgments(
    api: Api,
    run: str | None,
    agent: str | None,
    agent_version: str | None,
    flow: str | None,
    verdict: str | None,
    judge_class: str | None,
    participant: str | None,
    project: str | None,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    if agent_version and not agent:
        raise click.UsageError("--agent-version needs --agent")
    params = {
        "runId": run,
        "agentId": agent,
        "agentVersion": agent_version,
        "flowId": flow,
        "verdict": enum_value(verdict, "verdict", ("yes", "no")),
        "judgeClassId": judge_class,
        "participantId": participant,
        "scopeKind": "project" if project else None,
        "scopeId": project,
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/judgments", params=params)


@api_command(judgments, "show", help="One judgment, with the run's copy and the item's value.")
@click.argument("judgment_id")
def show(api: Api, judgment_id: str) -> JSON:
    return api.call("GET", f"/v1/judgments/{in_path(judgment_id)}")


@api_command(judgments, "remove", help="Remove a judgment.")
@click.argument("judgment_id")
def remove(api: Api, judgment_id: str) -> JSON:
    api.call("POST", f"/v1/judgments/{in_path(judgment_id)}/unregister", json={}, idempotent=True)
    return {"judgmentId": judgment_id, "removed": True}


judgments.add_command(remove, "unregister")
