"""`kindgi runs start|list|get|cancel|journal|stream`."""

from __future__ import annotations

import json
import sys
import time

import click

from ..domain.json import JSON, JSONObject
from .answers import an_object, member
from .command import api_command, json_arg
from .http import Api, ApiError, in_path

RUN_COLUMNS = [
    ("ID", lambda r: r["id"]),
    ("STATUS", lambda r: r["status"]),
    (
        "FLOW / AGENT",
        lambda r: f"{r['agent']['id']}@{r['agent']['version']}" if r.get("agent") else r["flowId"],
    ),
    ("CREATED", lambda r: r["createdAt"]),
]
JOURNAL_COLUMNS = [
    ("SEQ", lambda e: e["sequence"]),
    ("KIND", lambda e: e["kind"]),
    ("NODE", lambda e: e.get("nodeId", "")),
    ("TIME", lambda e: e["timestamp"]),
]
FOLLOW_DELAYS = (0.25, 0.5, 1.0)


def segment_list(values: tuple[str, ...], flag: str = "--segment") -> list[JSON] | None:
    """`--segment key:value` flags (or another `flag`'s), coarse to fine."""
    segments: list[JSON] = []
    for value in values:
        key, sep, rest = value.partition(":")
        if not sep or not key or not rest:
            raise click.UsageError(f'{flag} must be key:value, got "{value}"')
        segments.append({"key": key, "value": rest})
    return segments or None


@click.group(
    "runs",
    help="Runs: start an agent turn or a flow; list, get, cancel, journal, stream.",
)
def runs() -> None:
    """The runs group."""


@api_command(runs, "start", help="Start an agent turn or a flow run and wait for it.")
@click.option("--agent", help="The agent's id (or give --flow).")
@click.option("--agent-version", help="An exact version (default: the latest).")
@click.option("--flow", help="The flow's id (or give --agent).")
@click.option("--flow-version", help="An exact flow version (default: the latest).")
@click.option("--input", "input_", required=True, help="JSON input, or @file.")
@click.option("--project", help="The project (default: the default project).")
@click.option("--segment", multiple=True, help="key:value, repeatable, coarse to fine.")
@click.option("--idempotency-key", help="Sent as Idempotency-Key: a retry gets the same run.")
@click.option("--no-wait", is_flag=True, help="Print the run at once.")
@click.option("--dry-run", is_flag=True, help="Mock side effects: only read-only tools run.")
def start(
    api: Api,
    agent: str | None,
    agent_version: str | None,
    flow: str | None,
    flow_version: str | None,
    input_: str,
    project: str | None,
    segment: tuple[str, ...],
    idempotency_key: str | None,
    no_wait: bool,
    dry_run: bool,
) -> JSON:
    if (agent is None) == (flow is None):
        raise click.UsageError("Give exactly one of --agent=<id> or --flow=<id>")
    if agent_version is not None and agent is None:
        raise click.UsageError("--agent-version needs --agent")
    if flow_version is not None and flow is None:
        raise click.UsageError("--flow-version needs --flow")
    body = {
        "agent": agent,
        "agentVersion": agent_version,
        "flow": flow,
        "flowVersion": flow_version,
        "projectId": project,
        "segments": segment_list(segment),
        "input": json_arg(input_, "--input"),
        "options": {"wait": False, **({"dryRun": True} if dry_run else {})},
    }
    run = an_object(
        api.call(
            "POST",
            "/v1/runs",
            json={k: v for k, v in body.items() if v is not None},
            idempotent=True,
            idempotency_key=idempotency_key,
        )
    )
    if no_wait:
        return run
    run = follow(api, run)
    if run["status"] == "failed":
        from .output import Format

        Format().emit(run)
        failure = member(run, "failure")
        click.echo(
            f"Error [{failure.get('code', 'run-failed')}]: "
            f"{failure.get('message') or run.get('failureMessage', '')}",
            err=True,
        )
        sys.exit(1)
    return run


def follow(api: Api, run: JSONObject) -> JSONObject:
    """Poll the run (250 ms, 500 ms, 1 s, then every 2 s) until it is not pending/running."""
    attempt = 0
    failures = 0
    while run["status"] in ("pending", "running"):
        try:
            time.sleep(FOLLOW_DELAYS[attempt] if attempt < len(FOLLOW_DELAYS) else 2.0)
            attempt += 1
            run = an_object(api.call("GET", f"/v1/runs/{in_path(run['id'])}"))
            failures = 0
        except KeyboardInterrupt:
            click.echo(
                f"Stopped waiting. Run {run['id']} goes on: kindgi runs get {run['id']}", err=True
            )
            sys.exit(130)
        except ApiError:
            failures += 1
            if failures >= 5:
                raise
    return run


@api_command(runs, "list", columns=RUN_COLUMNS, help="List runs, newest first.")
@click.option("--agent")
@click.option("--replays", type=click.Choice(["exclude", "include", "only"]))
@click.option("--include-dry-runs", is_flag=True, help="List dry runs too.")
@click.option("--eval-run")
@click.option("--trigger", help="Runs a trigger started (kindgi dev has no triggers: none).")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_runs(
    api: Api,
    agent: str | None,
    replays: str | None,
    include_dry_runs: bool,
    eval_run: str | None,
    trigger: str | None,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    params = {
        "agentId": agent,
        "replays": replays,
        "includeDryRuns": "true" if include_dry_runs else None,
        "evalRunId": eval_run,
        "triggerId": trigger,
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/runs", params=params)


@api_command(runs, "get", help="One run, with its output.")
@click.argument("run_id")
def get(api: Api, run_id: str) -> JSON:
    return api.call("GET", f"/v1/runs/{in_path(run_id)}")


@api_command(runs, "cancel", help="Cancel a running run.")
@click.argument("run_id")
def cancel(api: Api, run_id: str) -> JSON:
    api.call("POST", f"/v1/runs/{in_path(run_id)}/cancel", idempotent=True)
    return {"ok": True, "runId": run_id}


@api_command(runs, "journal", columns=JOURNAL_COLUMNS, help="A run's journal.")
@click.argument("run_id")
@click.option("--since", type=int)
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def journal(
    api: Api, run_id: str, since: int | None, limit: int | None, cursor: str | None
) -> JSON:
    params = {"since": since, "limit": limit, "cursor": cursor}
    return api.call("GET", f"/v1/runs/{in_path(run_id)}/journal", params=params)


@api_command(
    runs, "stream", help="Follow a run's events; print them, one JSON per line, at its end."
)
@click.argument("run_id")
def stream(api: Api, run_id: str) -> None:
    for event in api.events(f"/v1/runs/{in_path(run_id)}/stream"):
        click.echo(json.dumps(event, separators=(",", ":")))
