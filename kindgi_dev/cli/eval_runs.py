"""`kindgi eval-runs start|show|list|cancel|rescore`, and trying a version on a test set."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from .banner import duration
from .command import api_command
from .http import Api

WAIT_LIMIT_S = 30 * 60


@click.group("eval-runs", help="Runs on the test cases: try an agent version, read the scores.")
def eval_runs() -> None:
    """The eval-runs group."""


def trial_options(function: Any) -> Any:
    """The flags that say which version to try and how."""
    options = [
        click.option("--project", help="The project the replays land in (default: default)."),
        click.option("--agent", required=True, help="The agent to try."),
        click.option("--agent-version", help="The version to try (default: the latest)."),
        click.option("--reads", type=click.Choice(["recorded", "live"]), default="recorded",
                     show_default=True, help="live: read-only tools always run live."),
        click.option("--repetitions", type=click.IntRange(1, 10), default=1, show_default=True),
        click.option("--k", type=click.IntRange(1, 100), default=10, show_default=True),
        click.option("--class-weights", type=click.Choice(["as-recorded", "restricted-only"]),
                     default="as-recorded", show_default=True),
        click.option("--dry-run", is_flag=True, help="Only preview the cases."),
        click.option("--wait", is_flag=True, help="Wait for the run and print it."),
    ]  # fmt: skip
    for option in reversed(options):
        function = option(function)
    return function


def trial_body(api: Api, options: dict[str, Any]) -> dict[str, Any]:
    """The start body; `--project` omitted → the default project."""
    project = options["project"] or api.call("GET", "/v1/projects/default")["id"]
    ref = {"agentId": options["agent"]}
    if options["agent_version"]:
        ref["version"] = options["agent_version"]
    body: dict[str, Any] = {
        "projectId": project, "agentRef": ref, "reads": options["reads"],
        "repetitions": options["repetitions"], "k": options["k"],
        "classWeights": options["class_weights"],
    }  # fmt: skip
    if options["dry_run"]:
        body["dryRun"] = True
    return body


def start_and_wait(api: Api, path: str, body: dict[str, Any], wait: bool) -> Any:
    """Start; without --wait print `{runId}` at once, with it wait and print the run."""
    started = api.call("POST", path, json=body, idempotent=True)
    if not wait:
        return started
    return wait_for(api, started["runId"])


def wait_for(api: Api, run_id: str) -> Any:
    """Poll every second; on a terminal, a progress line on stderr (nothing when piped)."""
    began = time.monotonic()
    shown = False
    while True:
        time.sleep(1.0)
        run = api.call("GET", f"/v1/eval-runs/{run_id}")
        if run["status"] not in ("pending", "running"):
            if shown:
                click.echo(f"\r  ✓ {run['status']} in {duration(time.monotonic() - began)}",
                           err=True)  # fmt: skip
            return run
        if time.monotonic() - began > WAIT_LIMIT_S:
            raise click.ClickException(
                f"Still running after 30 minutes: kindgi eval-runs show {run_id}"
            )
        if sys.stderr.isatty():
            progress = run.get("progress") or {}
            done, total = progress.get("casesDone", 0), progress.get("cases", "?")
            elapsed = duration(time.monotonic() - began)
            at_once = f", {progress['concurrency']} at a time" if "concurrency" in progress else ""
            click.echo(f"\r  ⋯ {done} of {total} cases{at_once} ({elapsed})", nl=False, err=True)
            shown = True


@api_command(eval_runs, "start", help="Try an agent version on a suite's test cases.")
@click.argument("suite_id")
@trial_options
def start(api: Api, suite_id: str, **options: Any) -> Any:
    return start_and_wait(api, f"/v1/eval-suites/{suite_id}/runs", trial_body(api, options),
                          options["wait"])  # fmt: skip


@api_command(eval_runs, "show", help="One eval run, with its result.")
@click.argument("run_id")
def show(api: Api, run_id: str) -> Any:
    return api.call("GET", f"/v1/eval-runs/{run_id}")


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
) -> Any:
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
def cancel(api: Api, run_id: str) -> Any:
    return api.call("POST", f"/v1/eval-runs/{run_id}/cancel")


@api_command(eval_runs, "rescore", help="Score a finished run's replays with today's corrections.")
@click.argument("run_id")
@click.option("--project")
@click.option("--wait", is_flag=True)
def rescore(api: Api, run_id: str, project: str | None, wait: bool) -> Any:
    body = {"projectId": project} if project else {}
    return start_and_wait(api, f"/v1/eval-runs/{run_id}/rescore", body, wait)


def try_on_test_set(group: click.Group) -> None:
    """Add `run` to `kindgi agents test-set`: freeze the set and try a version on it."""

    @api_command(group, "run", help="Freeze the agent's test set and try a version on it.")
    @trial_options
    def run(api: Api, **options: Any) -> Any:
        path = f"/v1/agents/{options['agent']}/test-set/runs"
        return start_and_wait(api, path, trial_body(api, options), options["wait"])
