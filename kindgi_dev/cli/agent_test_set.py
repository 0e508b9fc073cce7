"""`kindgi agents test-set AGENT`, `… add-case`, `… retire-case`: an agent's test set.

`kindgi agents test-set AGENT [--project] [--include-retired] [--kind]` reads the set and
its first page of cases: a word that isn't a subcommand is taken as the agent (the
explicit form is `test-set show AGENT`). Subcommands name the agent with `--agent`.
"""

from __future__ import annotations

import click

from ..domain.json import JSON, JSONObject
from ..domain.test_sets import CASE_KINDS
from .command import api_command, json_arg
from .eval_suites import project_or_default
from .http import Api, in_path
from .judgments import drop_none, rank_value


class AgentOrSubcommand(click.Group):
    """A group whose first word is a subcommand, or else the agent to `show`."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A known subcommand, else `show` with the word as its agent."""
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            return "show", self.commands["show"], args
        return super().resolve_command(ctx, args)


@click.group(
    "test-set",
    cls=AgentOrSubcommand,
    invoke_without_command=True,
    help="An agent's test set: `kindgi agents test-set AGENT` reads it; add or retire cases.",
)
@click.pass_context
def test_set(ctx: click.Context) -> None:
    """The test-set group; alone, its help."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@api_command(test_set, "show", help="The set (case counts, frozen version) and its first cases.")
@click.argument("agent")
@click.option("--project", help="The project (default: the default project).")
@click.option("--include-retired", is_flag=True, help="Show retired cases too.")
@click.option("--kind", multiple=True, type=click.Choice(CASE_KINDS), help="correction or hand.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def show(
    api: Api,
    agent: str,
    project: str | None,
    include_retired: bool,
    kind: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
) -> JSON:
    """The set and its first page of cases, as `{testSet, cases}`."""
    project_id = project_or_default(api, project)
    found = api.call(
        "GET", f"/v1/agents/{in_path(agent)}/test-set", params={"projectId": project_id}
    )
    params = {
        "projectId": project_id,
        "include": "retired" if include_retired else None,
        "kind": ",".join(kind) or None,
        "limit": limit,
        "cursor": cursor,
    }
    page = api.call("GET", f"/v1/agents/{in_path(agent)}/test-set/cases", params=params)
    return {"testSet": found, "cases": page}


@api_command(test_set, "add-case", help="Add a case by hand on one of the agent's finished runs.")
@click.option("--agent", required=True, help="The agent.")
@click.option("--run", required=True, help="The run's id.")
@click.option("--item", help="One item's key (with --pointer, --rank, --yes/--no).")
@click.option("--pointer", help="Where the item is in the output.")
@click.option("--rank", help="The item's place in its list, 0 first.")
@click.option("--yes", is_flag=True, help="The item is right there.")
@click.option("--no", is_flag=True, help="The item is wrong there.")
@click.option("--items", help="All the items as JSON (or @file): [{key, pointer, rank, verdict}].")
@click.option("--decisions", help="What it should have done, as JSON (or @file).")
@click.option("--answer", help="What its answer should have said, as JSON (or @file).")
def add_case(
    api: Api,
    agent: str,
    run: str,
    item: str | None,
    pointer: str | None,
    rank: str | None,
    yes: bool,
    no: bool,
    items: str | None,
    decisions: str | None,
    answer: str | None,
) -> JSON:
    """`POST …/test-set/cases` from `--item` flags and/or JSON parts."""
    given = json_arg(items, "--items") if items else []
    if item:
        if yes == no:
            raise click.UsageError("Give exactly one of --yes or --no")
        if not isinstance(given, list):
            raise click.UsageError("--items with --item must be a JSON list of items")
        entry: JSONObject = {
            "key": item,
            "pointer": pointer,
            "rank": rank_value(rank),
            "verdict": "right" if yes else "wrong",
        }
        given.append(drop_none(entry))
    body: JSONObject = {
        "runId": run,
        "items": given or None,
        "decisions": json_arg(decisions, "--decisions") if decisions else None,
        "answer": json_arg(answer, "--answer") if answer else None,
    }
    body = drop_none(body)
    return api.call(
        "POST", f"/v1/agents/{in_path(agent)}/test-set/cases", json=body, idempotent=True
    )


@api_command(test_set, "retire-case", help="Retire a case that no longer applies, saying why.")
@click.argument("case_id")
@click.option("--agent", required=True, help="The agent.")
@click.option("--reason", required=True, help="Why the case no longer applies.")
def retire_case(api: Api, case_id: str, agent: str, reason: str) -> JSON:
    """`POST …/test-set/cases/{id}/retire`."""
    path = f"/v1/agents/{in_path(agent)}/test-set/cases/{in_path(case_id)}/retire"
    return api.call("POST", path, json={"reason": reason}, idempotent=True)
