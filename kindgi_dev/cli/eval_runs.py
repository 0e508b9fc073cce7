"""`kindgi eval-runs start|show|list|cancel|rescore`, and trying a version on a test set."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import NotRequired

import click
from typing_extensions import Unpack

from ..domain.json import JSON, JSONObject
from ..domain.narrow import objects_of
from . import junit as report
from .answers import an_object, member
from .banner import duration
from .baselines import BaselineFlags, baseline_of, baseline_options, dry_run_note
from .command import Command, api_command
from .http import Api, in_path
from .output import Table
from .verdicts import METRIC_COLUMNS, metric_rows, summary_line

WAIT_LIMIT_S = 30 * 60


@click.group("eval-runs", help="Runs on the test cases: try an agent version, read the scores.")
def eval_runs() -> None:
    """The eval-runs group."""


class TrialFlags(BaselineFlags):
    """What `trial_options` adds to a command's keywords, and `flow_options` when given."""

    project: str | None
    agent: str | None
    agent_version: str | None
    reads: str
    repetitions: int
    k: int
    class_weights: str
    dry_run: bool
    reuse: bool
    wait: bool
    junit: Path | None
    flow: NotRequired[str | None]
    flow_version: NotRequired[str | None]
    swaps: NotRequired[tuple[str, ...]]


def trial_options(function: Command) -> Command:
    """The flags that say which version to try and how."""
    options = [
        click.option("--project", help="The project the replays land in."),
        click.option("--agent", help="The agent to try."),
        click.option("--agent-version", help="The version to try (default: the latest)."),
        click.option(
            "--reads",
            type=click.Choice(["recorded", "live"]),
            default="recorded",
            show_default=True,
            help="live: read-only tools always run live.",
        ),
        click.option("--repetitions", type=click.IntRange(1, 10), default=1, show_default=True),
        click.option("--k", type=click.IntRange(1, 100), default=10, show_default=True),
        click.option(
            "--class-weights",
            type=click.Choice(["as-recorded", "restricted-only"]),
            default="as-recorded",
            show_default=True,
        ),
        click.option(
            "--dry-run", is_flag=True, help="Only preview the cases and count each side's replays."
        ),
        click.option(
            "--reuse",
            is_flag=True,
            help="Reuse the answers an earlier run of the same agent content gave (off: a "
            "reused answer hides a model's nondeterminism and a changed tool's behaviour).",
        ),
        click.option("--wait", is_flag=True, help="Wait for the run and print it."),
        click.option(
            "--junit",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Wait, and write a JUnit XML report there: a testcase per case.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return baseline_options(function)


def flow_options(function: Command) -> Command:
    """The flags that try a flow version, with some of its tools or agents swapped."""
    options = [
        click.option("--flow", help="The flow to try (instead of --agent)."),
        click.option("--flow-version", help="The flow version to try (default: the latest)."),
        click.option(
            "--with",
            "swaps",
            multiple=True,
            metavar="<id>@<version>",
            help="Run a tool or agent of the flow at another version (repeatable).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def subject(api: Api, options: TrialFlags) -> JSONObject:
    """`agentRef`, or `flowRef` and `versions` with each `--with` sorted by what the flow runs."""
    agent, flow = options.get("agent"), options.get("flow")
    if (agent is None) == (flow is None):
        raise click.UsageError("Give exactly one of --agent=<id> or --flow=<id>")
    if agent is not None:
        if options.get("flow_version") or options.get("swaps"):
            raise click.UsageError("--flow-version and --with need --flow")
        ref: JSONObject = {"agentId": agent}
        if options["agent_version"]:
            ref["version"] = options["agent_version"]
        return {"agentRef": ref}
    if options.get("agent_version"):
        raise click.UsageError("--agent-version needs --agent")
    flow_ref: dict[str, str] = {"flowId": str(flow)}
    flow_version = options.get("flow_version")
    if flow_version:
        flow_ref["version"] = flow_version
    swaps = options.get("swaps")
    if not swaps:
        return {"flowRef": {**flow_ref}}
    if not flow_version:
        raise click.UsageError("--with needs --flow and --flow-version")
    return {"flowRef": {**flow_ref}, "versions": sorted_swaps(api, flow_ref, swaps)}


def sorted_swaps(api: Api, flow_ref: dict[str, str], swaps: tuple[str, ...]) -> JSONObject:
    """`{tools, agents}` from `<id>@<version>` flags, by the kind of node that runs each id."""
    flow = an_object(
        api.call(
            "GET",
            f"/v1/flows/{in_path(flow_ref['flowId'])}/versions/{in_path(flow_ref['version'])}",
        )
    )
    kinds = {
        str(n.get("ref", "")).partition("@")[0]: n.get("kind") for n in objects_of(flow["nodes"])
    }
    versions: dict[str, JSONObject] = {}
    for swap in swaps:
        item_id, at, version = swap.partition("@")
        if not at or not item_id or not version:
            raise click.UsageError(f'--with must be <id>@<version>, got "{swap}"')
        if kinds.get(item_id) not in ("tool", "agent"):
            raise click.ClickException(f"flow {flow['id']} {flow['version']} doesn't use {item_id}")
        versions.setdefault(f"{kinds[item_id]}s", {})[item_id] = version
    return {kind: ids for kind, ids in versions.items()}


def trial_body(api: Api, options: TrialFlags) -> JSONObject:
    """The start body; `--project` omitted (`agents test-set run`) → the default project."""
    chosen = subject(api, options)
    project = options["project"] or an_object(api.call("GET", "/v1/projects/default"))["id"]
    body: JSONObject = {
        "projectId": project,
        **chosen,
        "reads": options["reads"],
        "repetitions": options["repetitions"],
        "k": options["k"],
        "classWeights": options["class_weights"],
    }
    baseline = baseline_of(options)
    if baseline is not None:
        body["baseline"] = baseline
    if options["dry_run"]:
        body["dryRun"] = True
    if options["reuse"]:
        body["reuse"] = True
    return body


def start_and_wait(
    api: Api, path: str, body: JSONObject, wait: bool, junit: Path | None = None
) -> JSON:
    """Start; without --wait (or --junit) print `{runId}` at once, with it wait and print
    the run, its verdict's summary line on stderr, and with --junit its JUnit report."""
    started = an_object(api.call("POST", path, json=body, idempotent=True))
    note = dry_run_note(started)
    if note is not None:
        click.echo(note, err=True)
    if not wait and junit is None:
        return started
    run = wait_for(api, str(started["runId"]))
    line = summary_line(run)
    if line is not None:
        click.echo(line, err=True)
    if junit is not None:
        report.write(run, junit)
    return run


def wait_for(api: Api, run_id: str) -> JSONObject:
    """Poll every second; on a terminal, a progress line on stderr (nothing when piped)."""
    began = time.monotonic()
    shown = False
    while True:
        try:
            time.sleep(1.0)
            run = an_object(api.call("GET", f"/v1/eval-runs/{in_path(run_id)}"))
        except KeyboardInterrupt:
            click.echo(
                f"\nStopped waiting. Eval run {run_id} goes on: kindgi eval-runs show {run_id}",
                err=True,
            )
            sys.exit(130)
        if run["status"] not in ("pending", "running"):
            if shown:
                click.echo(
                    f"\r  ✓ {run['status']} in {duration(time.monotonic() - began)}", err=True
                )
            return run
        if time.monotonic() - began > WAIT_LIMIT_S:
            raise click.ClickException(
                f"Still running after 30 minutes: kindgi eval-runs show {run_id}"
            )
        if sys.stderr.isatty():
            progress = member(run, "progress")
            done, total = progress.get("casesDone", 0), progress.get("cases", "?")
            elapsed = duration(time.monotonic() - began)
            at_once = f", {progress['concurrency']} at a time" if "concurrency" in progress else ""
            click.echo(f"\r  ⋯ {done} of {total} cases{at_once} ({elapsed})", nl=False, err=True)
            shown = True


VERDICT_TABLE = Table(columns=METRIC_COLUMNS, rows=metric_rows)
"""`--table` of a finished run: its metrics, each with its interval and verdict."""


@api_command(
    eval_runs,
    "start",
    help="Try an agent or flow version on a suite's test cases (or resume a run).",
    **VERDICT_TABLE,
)
@click.argument("suite_id", required=False)
@click.option(
    "--resume",
    metavar="<eval-run-id>",
    help="Replay only the cases that run didn't finish, into a new run of the whole set.",
)
@trial_options
@flow_options
def start(
    api: Api, suite_id: str | None, resume: str | None, **options: Unpack[TrialFlags]
) -> JSON:
    if resume is not None:
        path = f"/v1/eval-runs/{in_path(resume)}/resume"
        return start_and_wait(api, path, {}, options["wait"], options["junit"])
    if suite_id is None:
        raise click.UsageError("Give the suite's id, or --resume=<eval-run-id>")
    if not options.get("project"):
        raise click.UsageError("--project=<id> is required")
    path = f"/v1/eval-suites/{in_path(suite_id)}/runs"
    return start_and_wait(api, path, trial_body(api, options), options["wait"], options["junit"])


@api_command(eval_runs, "show", help="One eval run, with its result.", **VERDICT_TABLE)
@click.argument("run_id")
def show(api: Api, run_id: str) -> JSON:
    return api.call("GET", f"/v1/eval-runs/{in_path(run_id)}")


@api_command(eval_runs, "list", help="List eval runs, newest first.")
@click.option("--suite")
@click.option(
    "--status", type=click.Choice(["pending", "running", "completed", "failed", "cancelled"])
)
@click.option("--agent")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_runs(
    api: Api,
    suite: str | None,
    status: str | None,
    agent: str | None,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    params = {
        "suiteId": suite,
        "status": status,
        "agentId": agent,
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/eval-runs", params=params)


@api_command(eval_runs, "cancel", help="Cancel a running eval run.")
@click.argument("run_id")
def cancel(api: Api, run_id: str) -> JSON:
    return api.call("POST", f"/v1/eval-runs/{in_path(run_id)}/cancel")


@api_command(
    eval_runs,
    "rescore",
    help="Score a finished run's replays with today's corrections.",
    **VERDICT_TABLE,
)
@click.argument("run_id")
@click.option("--project")
@click.option("--wait", is_flag=True)
def rescore(api: Api, run_id: str, project: str | None, wait: bool) -> JSON:
    body: JSONObject = {"projectId": project} if project else {}
    return start_and_wait(api, f"/v1/eval-runs/{in_path(run_id)}/rescore", body, wait)


def try_on_test_set(group: click.Group) -> None:
    """Add `run` to `kindgi agents test-set`: freeze the set and try a version on it."""

    @api_command(
        group, "run", help="Freeze the agent's test set and try a version on it.", **VERDICT_TABLE
    )
    @trial_options
    def run(api: Api, **options: Unpack[TrialFlags]) -> JSON:
        if not options.get("agent"):
            raise click.UsageError("--agent=<id> is required")
        path = f"/v1/agents/{in_path(options['agent'])}/test-set/runs"
        body = trial_body(api, options)
        return start_and_wait(api, path, body, options["wait"], options["junit"])
