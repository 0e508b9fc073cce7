"""`kindgi corrections add|list|show|set-status|decisions|answer` (0.4 corrections)."""

from __future__ import annotations

import click

from ..domain.json import JSON, JSONObject
from ..domain.narrow import objects_of
from ..domain.pointers import resolve
from .answers import an_object
from .command import api_command, json_arg
from .http import Api, in_path
from .judgments import drop_none, item_options, rank_value, require, yes_or_no

STATUSES = ("open", "fixed", "with-owner", "wont-fix", "removed")


def mine(api: Api, run_id: str, participant: str | None) -> JSONObject | None:
    """The caller's live, unerased correction of a run (for that end user, when given)."""
    params = {"runId": run_id, "correctedBy": "me", "participantId": participant, "limit": 100}
    page = an_object(api.call("GET", "/v1/corrections", params=params))
    for correction in objects_of(page["data"]):
        if correction.get("participantId") == participant and not correction.get("erased"):
            return dict(correction)
    return None


def correct(api: Api, run_id: str, participant: str | None, part: str, value: JSON) -> JSON:
    """Set one part (`decisions` or `answer`) of the caller's correction of a run."""
    found = mine(api, run_id, participant)
    if found is not None:
        path = f"/v1/corrections/{in_path(found['id'])}"
        return api.call("PATCH", path, json={part: value}, idempotent=True)
    body = drop_none({"runId": run_id, part: value, "participantId": participant})
    return api.call("POST", "/v1/corrections", json=body, idempotent=True)


@click.group("corrections", help="Corrections: say what was right or wrong in a run.")
def corrections() -> None:
    """The corrections group."""


@api_command(corrections, "add", help="Add an item to your correction of a run and print it.")
@item_options
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
) -> JSON:
    run_id = require(run, "run", "run-id")
    key = require(item, "item", "key")
    if pointer is not None:
        check_item(api, run_id, key, pointer)
    entry = {
        "key": key,
        "pointer": pointer,
        "rank": rank_value(rank),
        "verdict": "right" if yes_or_no(yes, no) else "wrong",
        "reason": reason,
    }
    found = mine(api, run_id, participant)
    if found is not None:
        path = f"/v1/corrections/{in_path(found['id'])}/items"
        return api.call("POST", path, json=drop_none(entry), idempotent=True)
    body = drop_none({"runId": run_id, "items": [drop_none(entry)], "participantId": participant})
    return api.call("POST", "/v1/corrections", json=body, idempotent=True)


def check_item(api: Api, run_id: str, key: str, pointer: str) -> None:
    """Refuse `--item` that isn't the item at `--pointer` (a typo makes a wrong case)."""
    output = an_object(api.call("GET", f"/v1/runs/{in_path(run_id)}")).get("output")
    try:
        found = resolve(output, pointer)
    except (LookupError, ValueError):
        return
    named = found.get("id") if isinstance(found, dict) else None
    if isinstance(named, str) and named != key:
        raise click.UsageError(
            f"--pointer={pointer} is item {named} in the run's output, not --item={key}: "
            "nothing was corrected"
        )


@api_command(corrections, "list", help="List corrections, newest first.")
@click.option("--run", help="Only this run's.")
@click.option("--agent", help="Only runs of this agent.")
@click.option("--project", help="Only this project's.")
@click.option("--status", help="Only these statuses, comma-separated.")
@click.option("--participant", help="Only those made for this end user.")
@click.option("--include-replaced", is_flag=True, help="Replaced corrections too.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_corrections(
    api: Api,
    run: str | None,
    agent: str | None,
    project: str | None,
    status: str | None,
    participant: str | None,
    include_replaced: bool,
    limit: int | None,
    cursor: str | None,
) -> JSON:
    params = {
        "runId": run,
        "agentId": agent,
        "projectId": project,
        "status": status,
        "participantId": participant,
        "includeReplaced": include_replaced or None,
        "limit": limit,
        "cursor": cursor,
    }
    return api.call("GET", "/v1/corrections", params=params)


@api_command(corrections, "show", help="One correction, with its items.")
@click.argument("correction_id")
def show(api: Api, correction_id: str) -> JSON:
    return api.call("GET", f"/v1/corrections/{in_path(correction_id)}")


@api_command(corrections, "set-status", help="Set a correction's status.")
@click.argument("correction_id")
@click.argument("status", type=click.Choice(STATUSES))
def set_status(api: Api, correction_id: str, status: str) -> JSON:
    path = f"/v1/corrections/{in_path(correction_id)}"
    return api.call("PATCH", path, json={"status": status}, idempotent=True)


@api_command(corrections, "decisions", help="Say what the run should have done.")
@click.option("--run", help="The run's id.")
@click.option("--right", is_flag=True, help="The run decided right.")
@click.option("--should-call", multiple=True, help="A tool it should have called; repeatable.")
@click.option("--args", "args_", multiple=True, help="JSON args of the matching --should-call.")
@click.option("--must-not-call", multiple=True, help="A tool it must not call; repeatable.")
@click.option("--participant", help="The app's end user this is for.")
def decisions(
    api: Api,
    run: str | None,
    right: bool,
    should_call: tuple[str, ...],
    args_: tuple[str, ...],
    must_not_call: tuple[str, ...],
    participant: str | None,
) -> JSON:
    run_id = require(run, "run", "run-id")
    wrong = bool(should_call or must_not_call)
    if right == wrong:
        raise click.UsageError("Give --right, or --should-call and/or --must-not-call")
    if len(args_) > len(should_call):
        raise click.UsageError("Each --args goes with a --should-call, in order")
    if right:
        return correct(api, run_id, participant, "decisions", {"verdict": "right"})
    calls: list[JSONObject] = [{"toolId": tool} for tool in should_call]
    for call, text in zip(calls, args_, strict=False):
        call["args"] = json_arg(text, "--args")
    value: JSONObject = {
        "verdict": "wrong",
        "shouldCall": [*calls] or None,
        "mustNotCall": [*must_not_call] or None,
    }
    return correct(api, run_id, participant, "decisions", drop_none(value))


@api_command(corrections, "answer", help="Say whether the run's answer was right.")
@click.option("--run", help="The run's id.")
@click.option("--right", is_flag=True, help="The answer was right.")
@click.option("--wrong", is_flag=True, help="The answer was wrong.")
@click.option("--should-say", help="What the answer should have said.")
@click.option("--why", help="Why the answer was wrong.")
@click.option("--participant", help="The app's end user this is for.")
def answer(
    api: Api,
    run: str | None,
    right: bool,
    wrong: bool,
    should_say: str | None,
    why: str | None,
    participant: str | None,
) -> JSON:
    run_id = require(run, "run", "run-id")
    if right == wrong:
        raise click.UsageError("Give exactly one of --right or --wrong")
    value = {"verdict": "right" if right else "wrong", "shouldSay": should_say, "why": why}
    return correct(api, run_id, participant, "answer", drop_none(value))
