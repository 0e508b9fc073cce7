"""`kindgi eval-suites list|show|from-judgments|cases`."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import click

from ..domain.json import JSON, JSONObject
from ..domain.time import format_time, parse_time
from .answers import an_object
from .command import api_command
from .http import Api, QueryValue, in_path
from .judgments import drop_none, enum_value, require
from .runs import segment_list

KINDS = ("accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "judged")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def time_flag(text: str | None, flag: str) -> str | None:
    """`--since`/`--until`: a date (00:00 UTC) or ISO-8601 with a zone, sent as `…sssZ`."""
    if text is None:
        return None
    try:
        if _DATE.fullmatch(text):
            return format_time(datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC))
        return format_time(parse_time(text))
    except ValueError:
        raise click.UsageError(
            f"--{flag} must be a date (YYYY-MM-DD) or an ISO 8601 time with a zone, got '{text}'"
        ) from None


def least_judgments(text: str | None) -> int | None:
    """`--min-judgments`: an integer, 1 or more."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise click.UsageError(f"--min-judgments must be an integer, got '{text}'") from None
    if value < 1:
        raise click.UsageError("--min-judgments must be 1 or more")
    return value


def project_or_default(api: Api, project: str | None) -> str:
    """`--project`, or the default project's id when it is omitted."""
    return project or str(an_object(api.call("GET", "/v1/projects/default"))["id"])


@click.group("eval-suites", help="Eval suites: list, show, build from judgments, list cases.")
def eval_suites() -> None:
    """The eval-suites group."""


@api_command(eval_suites, "list", help="The latest version of each eval suite.")
@click.option("--project", help="Only this project's suites.")
@click.option("--kind", help=f"One of {', '.join(KINDS)}.")
@click.option("--name", help="Suite ids starting with this.")
@click.option("--include-retired", is_flag=True, help="Suites with every version unregistered too.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_suites(
    api: Api,
    project: str | None,
    kind: str | None,
    name: str | None,
    include_retired: bool,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    """`GET /v1/eval-suites`."""
    params: dict[str, QueryValue] = {
        "kind": enum_value(kind, "kind", KINDS),
        "name": name,
        "limit": limit,
        "cursor": cursor,
        "includeRetired": True if include_retired else None,
    }
    if project:
        params.update(scopeKind="project", scopeId=project)
    return api.call("GET", "/v1/eval-suites", params=params)


@api_command(eval_suites, "show", help="An eval suite's latest version, or one version.")
@click.argument("suite_id")
@click.option("--suite-version", help="One version (default: the latest active).")
def show(api: Api, suite_id: str, suite_version: str | None) -> JSON:
    """`GET /v1/eval-suites/{id}` or one version."""
    if suite_version:
        return api.call(
            "GET", f"/v1/eval-suites/{in_path(suite_id)}/versions/{in_path(suite_version)}"
        )
    return api.call("GET", f"/v1/eval-suites/{in_path(suite_id)}")


@api_command(eval_suites, "from-judgments", help="Build a judged version from corrected runs.")
@click.argument("suite_id")
@click.option("--suite-version", help="The version to build, such as 1.0.0 (required).")
@click.option("--project", help="The runs' project (default: the default project).")
@click.option("--agent", help="The agent whose corrected runs to take.")
@click.option("--flow", help="The flow whose corrected runs to take.")
@click.option("--agent-version", help="Only this version's runs (needs --agent).")
@click.option("--since", help="Runs first corrected at or after this (date or ISO time).")
@click.option("--until", help="Runs first corrected before this (date or ISO time).")
@click.option("--class", "classes", multiple=True, help="Count only this judge class (repeat).")
@click.option("--min-judgments", help="Leave out runs with fewer counted judgments (default 1).")
@click.option("--segment", multiple=True, help="key:value, repeatable, coarse to fine.")
@click.option("--description", help="What the test cases hold.")
def from_judgments(
    api: Api,
    suite_id: str,
    suite_version: str | None,
    project: str | None,
    agent: str | None,
    flow: str | None,
    agent_version: str | None,
    since: str | None,
    until: str | None,
    classes: tuple[str, ...],
    min_judgments: str | None,
    segment: tuple[str, ...],
    description: str | None,
) -> JSON:
    """`POST …/versions/from-judgments`; `--project` omitted: the default one."""
    version = require(suite_version, "suite-version", "semver")
    if (agent is None) == (flow is None):
        raise click.UsageError("Give exactly one of --agent or --flow")
    if agent_version and not agent:
        raise click.UsageError("--agent-version needs --agent")
    body: JSONObject = drop_none(
        {
            "version": version,
            "projectId": project_or_default(api, project),
            "agentId": agent,
            "flowId": flow,
            "agentVersion": agent_version,
            "since": time_flag(since, "since"),
            "until": time_flag(until, "until"),
            "judgeClassIds": [*classes] or None,
            "minJudgments": least_judgments(min_judgments),
            "segments": segment_list(segment),
            "description": description,
        }
    )
    path = f"/v1/eval-suites/{in_path(suite_id)}/versions/from-judgments"
    return api.call("POST", path, json=body, idempotent=True)


@api_command(eval_suites, "cases", help="A version's cases, in stored order.")
@click.argument("suite_id")
@click.option("--suite-version", help="The version (required).")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def cases(
    api: Api, suite_id: str, suite_version: str | None, limit: int | None, cursor: str | None
) -> JSON:
    """`GET …/versions/{v}/cases`."""
    version = require(suite_version, "suite-version", "semver")
    path = f"/v1/eval-suites/{in_path(suite_id)}/versions/{in_path(version)}/cases"
    return api.call("GET", path, params={"limit": limit, "cursor": cursor})
