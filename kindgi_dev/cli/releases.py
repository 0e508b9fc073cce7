"""`kindgi agents live|live-versions|promote|gate-policy|rollback|unpin|promotions`: which
version runs where, and changing it, with the real CLI's flags.

`promote --check` prints the gate's answer and exits 1 when it says `gate-failed`, each
failed check's message on stderr, so a CI job can gate on it (see docs/choices.md).
"""

from __future__ import annotations

from typing import TypedDict

import click
from typing_extensions import Unpack

from ..domain.json import JSON, JSONObject
from .answers import an_object, member, objects
from .command import Command, ExitWith, api_command
from .http import Api, QueryValue
from .output import Column

SCOPE_HELP = "(--tenant | --org=<id> | --project=<id> [--segment=<key:value>]…)"


class ScopeFlags(TypedDict):
    """What `scope_options` adds to a command's keywords."""

    tenant: bool
    org: str | None
    project: str | None
    segments: tuple[str, ...]


def scope_options(function: Command) -> Command:
    """The flags that name a scope: one of --tenant, --org, --project (with --segment)."""
    options = [
        click.option("--tenant", is_flag=True, help="The whole tenant."),
        click.option("--org", help="An org, by id (kindgi dev has none)."),
        click.option("--project", help="A project, by id; with --segment, a segment in it."),
        click.option("--segment", "segments", multiple=True, metavar="<key:value>",
                     help="One step of the segment path, coarse to fine (repeat it)."),
    ]  # fmt: skip
    for option in reversed(options):
        function = option(function)
    return function


def scope_of(
    tenant: bool, org: str | None, project: str | None, segments: tuple[str, ...], required: bool
) -> JSONObject | None:
    """The scope the flags name; a usage error when they clash, or name none when one is due."""
    if sum([tenant, org is not None, project is not None]) > 1:
        raise click.UsageError("Give one of --tenant, --org or --project")
    if segments and project is None:
        raise click.UsageError("--segment needs --project")
    if tenant:
        return {"kind": "tenant"}
    if org is not None:
        return {"kind": "org", "orgId": org}
    if project is not None:
        if not segments:
            return {"kind": "project", "projectId": project}
        return {"kind": "segment", "projectId": project, "path": [_step(s) for s in segments]}
    if required:
        raise click.UsageError(f"Name the scope: {SCOPE_HELP}")
    return None


def _step(text: str) -> JSONObject:
    key, colon, value = text.partition(":")
    if not colon or not key or not value:
        raise click.UsageError(f"--segment takes <key:value>, got '{text}'")
    return {"key": key, "value": value}


def scope_query(scope: JSONObject | None) -> dict[str, QueryValue]:
    """A scope as the list and resolve queries take it."""
    if scope is None:
        return {}
    query: dict[str, QueryValue] = {"scopeKind": str(scope["kind"])}
    named = scope.get("orgId") or scope.get("projectId")
    query["scopeId"] = None if named is None else str(named)
    if scope["kind"] == "segment":
        query["segment"] = [f"{s['key']}:{s['value']}" for s in objects(scope["path"])]
    return query


def scope_cell(scope: JSONObject) -> str:
    """`tenant`, `org <id>`, `project <id>`, `project <id> company=acme/team=x`."""
    if scope["kind"] == "tenant":
        return "tenant"
    if scope["kind"] == "org":
        return f"org {scope['orgId']}"
    steps = "/".join(f"{s['key']}={s['value']}" for s in objects(scope.get("path")))
    return f"project {scope['projectId']}" + (f" {steps}" if steps else "")


PIN_COLUMNS: list[Column] = [
    ("SCOPE", lambda pin: scope_cell(member(pin, "scope"))),
    ("VERSION", lambda pin: pin.get("version")),
    ("SET AT", lambda pin: pin.get("setAt")),
]
HISTORY_COLUMNS: list[Column] = [
    ("ID", lambda p: p.get("id")),
    ("ACTION", lambda p: p.get("action")),
    ("STATUS", lambda p: p.get("status") or ("promoted" if p["action"] == "promote" else "done")),
    ("SCOPE", lambda p: scope_cell(member(p, "scope"))),
    ("FROM", lambda p: p.get("fromVersion") or "-"),
    ("TO", lambda p: p.get("toVersion") or "-"),
    ("BY", lambda p: f"{member(p, 'requestedBy')['kind']} {member(p, 'requestedBy')['id']}"),
    ("AT", lambda p: p.get("createdAt")),
]


class LiveCells:
    """The LIVE column of `kindgi agents versions --table`: the scopes each version is live
    in. The table gets it once the agent's pins are read, and only when one exists."""

    def __init__(self, columns: list[Column]) -> None:
        self.columns = list(columns)
        self.scopes: dict[str, list[str]] = {}

    def fill(self, pins: list[JSONObject]) -> None:
        """Note where each pinned version is live."""
        for pin in pins:
            self.scopes.setdefault(str(pin["version"]), []).append(scope_cell(member(pin, "scope")))
        if self.scopes:
            self.columns.append(("LIVE", self))

    def __call__(self, row: JSONObject) -> str:
        return "; ".join(self.scopes.get(str(row.get("version")), []))


def add_release_commands(agents: click.Group, columns: list[Column]) -> None:
    """Add the live-version commands to `kindgi agents`, and a LIVE column to the table of
    `versions` (`columns`: the agents' own)."""
    base = "/v1/agents"
    cells = LiveCells(columns)

    @api_command(agents, "versions", columns=cells.columns,
                 help="Its versions, lowest first (--table: where each is live).")  # fmt: skip
    @click.argument("agent_id")
    @click.option("--include-unregistered", is_flag=True, help="Also unregistered versions.")
    @click.option("--limit", type=click.IntRange(1, 100))
    @click.option("--cursor")
    def versions(api: Api, agent_id: str, include_unregistered: bool, limit: int | None,
                 cursor: str | None) -> JSON:  # fmt: skip
        query = {"includeTombstoned": include_unregistered or None, "limit": limit,
                 "cursor": cursor}  # fmt: skip
        page = api.call("GET", f"{base}/{agent_id}/versions", params=query)
        cells.fill(objects(an_object(api.call("GET", f"{base}/{agent_id}/live-versions"))["data"]))
        return page

    @api_command(agents, "live", help="The version a run would use for a project and segment.")
    @click.argument("agent_id")
    @click.option("--project", help="The run's project, by id.")
    @click.option("--segment", "segments", multiple=True, metavar="<key:value>")
    def live(api: Api, agent_id: str, project: str | None, segments: tuple[str, ...]) -> JSON:
        if segments and project is None:
            raise click.UsageError("--segment needs --project")
        query = {"projectId": project, "segment": [_join(s) for s in segments] or None}
        return api.call("GET", f"{base}/{agent_id}/live", params=query)

    @api_command(agents, "live-versions", columns=PIN_COLUMNS,
                 help="Every scope with a live version of this agent pinned.")  # fmt: skip
    @click.argument("agent_id")
    def live_versions(api: Api, agent_id: str) -> JSON:
        return api.call("GET", f"{base}/{agent_id}/live-versions")

    @api_command(agents, "promote", help="Make a version live for a scope, through its gate; "
                 "--check asks the gate and changes nothing (exit 1 on gate-failed).")  # fmt: skip
    @click.argument("agent_id")
    @click.argument("version")
    @scope_options
    @click.option("--eval-run", help="The comparison eval run the gate checks.")
    @click.option("--check", is_flag=True, help="What the gate would say; changes nothing.")
    @click.option("--reason", help="Why, kept on the record.")
    @click.option("--idempotency-key", help="A retry with the same key returns the first answer.")
    def promote(api: Api, agent_id: str, version: str, eval_run: str | None, check: bool,
                reason: str | None, idempotency_key: str | None,
                **flags: Unpack[ScopeFlags]) -> JSON:  # fmt: skip
        body = {"version": version, "scope": scope_of(**flags, required=True), "reason": reason,
                "evalRunId": eval_run}  # fmt: skip
        body = {k: v for k, v in body.items() if v is not None}
        if not check:
            return api.call("POST", f"{base}/{agent_id}/promotions", json=body,
                            idempotent=True, idempotency_key=idempotency_key)  # fmt: skip
        answer = an_object(api.call("POST", f"{base}/{agent_id}/promotions/check", json=body))
        if answer.get("outcome") == "gate-failed":
            checks = objects(answer.get("checks", []))
            failed = [c["message"] for c in checks if not c.get("passed")]
            raise ExitWith(answer, 1, [f"✗ {message}" for message in failed])
        return answer

    @api_command(agents, "gate-policy", help="The gate policy a promotion for a scope is "
                 "checked against (the most specific scope with one), or null.")  # fmt: skip
    @click.argument("agent_id")
    @scope_options
    def gate_policy(api: Api, agent_id: str, **flags: Unpack[ScopeFlags]) -> JSON:
        scope = scope_query(scope_of(**flags, required=True))
        return api.call("GET", f"{base}/{agent_id}/gate-policy", params=scope)

    @api_command(agents, "rollback", help="Put a scope back on its previous live version, "
                 "or on the version given.")  # fmt: skip
    @click.argument("agent_id")
    @scope_options
    @click.option("--to", "to_version", help="An earlier version (default: the previous one).")
    @click.option("--reason", help="Why, kept on the record.")
    @click.option("--idempotency-key")
    def rollback(api: Api, agent_id: str, to_version: str | None, reason: str | None,
                 idempotency_key: str | None, **flags: Unpack[ScopeFlags]) -> JSON:  # fmt: skip
        body = {"scope": scope_of(**flags, required=True), "toVersion": to_version,
                "reason": reason}  # fmt: skip
        return api.call("POST", f"{base}/{agent_id}/live/rollback", idempotent=True,
                        json={k: v for k, v in body.items() if v is not None},
                        idempotency_key=idempotency_key)  # fmt: skip

    @api_command(agents, "unpin", help="Remove a scope's own live version: its runs use the "
                 "scope above's (or the latest).")  # fmt: skip
    @click.argument("agent_id")
    @scope_options
    @click.option("--reason", help="Why, kept on the record.")
    @click.option("--idempotency-key")
    def unpin(api: Api, agent_id: str, reason: str | None, idempotency_key: str | None,
              **flags: Unpack[ScopeFlags]) -> JSON:  # fmt: skip
        body = {"scope": scope_of(**flags, required=True), "reason": reason}
        return api.call("POST", f"{base}/{agent_id}/live/unpin", idempotent=True,
                        json={k: v for k, v in body.items() if v is not None},
                        idempotency_key=idempotency_key)  # fmt: skip

    agents.add_command(_promotions_group(base))


def _join(segment: str) -> str:
    """A `--segment` value checked as `key:value`."""
    step = _step(segment)
    return f"{step['key']}:{step['value']}"


def _promotions_group(base: str) -> click.Group:
    """`kindgi agents promotions list|get`."""
    group = click.Group("promotions", help="What was made live, rolled back or unpinned.")

    @api_command(group, "list", columns=HISTORY_COLUMNS,
                 help="An agent's promotions, rollbacks and unpins, newest first.")  # fmt: skip
    @click.argument("agent_id")
    @scope_options
    @click.option("--limit", type=click.IntRange(1, 100))
    @click.option("--cursor")
    def list_history(api: Api, agent_id: str, limit: int | None, cursor: str | None,
                     **flags: Unpack[ScopeFlags]) -> JSON:  # fmt: skip
        query = {**scope_query(scope_of(**flags, required=False)), "limit": limit, "cursor": cursor}
        return api.call("GET", f"{base}/{agent_id}/promotions", params=query)

    @api_command(group, "get", help="One promotion of an agent.")
    @click.argument("agent_id")
    @click.argument("promotion_id")
    def get(api: Api, agent_id: str, promotion_id: str) -> JSON:
        return api.call("GET", f"{base}/{agent_id}/promotions/{promotion_id}")

    return group
