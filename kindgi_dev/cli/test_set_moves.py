"""`kindgi test-sets pull|push`: move a test-set version between this runtime and another.

`--token` here is the other runtime's token (or `KINDGI_REMOTE_TOKEN`), never the local
one, which comes from `KINDGI_API_TOKEN` or `.kindgirc.json` as for every command. Both
show progress on a terminal and stay quiet when piped.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Callable, Iterator

import click

from ..domain.json import JSON, JSONObject
from ..domain.narrow import objects_of
from ..remote import BadToken, Remote, RemoteError, Transfer, UnsafeUrl, check_token, check_url
from .answers import an_object, member
from .command import fail
from .config import resolve
from .http import Api, ApiError, error_of, in_path
from .output import Format

_LOCAL_OPTIONS = [
    click.option(
        "--token",
        envvar="KINDGI_REMOTE_TOKEN",
        show_envvar=True,
        help="The other runtime's token (never the local one).",
    ),
    click.option(
        "--insecure", is_flag=True, help="Allow plain http to a machine other than this one."
    ),
    click.option("--url", help="This runtime's API URL (beats KINDGI_API_URL and .kindgirc.json)."),
    click.option("--hosted", is_flag=True, help="Ignore a kindgi dev .kindgirc.json here."),
    click.option("--verbose", "-v", is_flag=True, help="The whole error body on failure."),
    click.option("--json", "as_json", is_flag=True, help="Pretty JSON (the default)."),
    click.option("--raw", is_flag=True, help="One-line JSON."),
    click.option("--quiet", is_flag=True, help="Nothing on stdout; the exit code only."),
]


def _moving(function: Callable[..., JSON]) -> Callable[..., None]:
    """The options both directions take; the command gets `api` and `progress`."""

    @functools.wraps(function)
    def run(
        url: str | None,
        hosted: bool,
        verbose: bool,
        as_json: bool,
        raw: bool,
        quiet: bool,
        **kwargs: object,
    ) -> None:
        api = Api(resolve(url, None, hosted=hosted))
        try:
            result = function(api, progress=ProgressLine(), **kwargs)
        except ApiError as error:
            fail(error, verbose)
        finally:
            api.close()
        Format(quiet=quiet, raw=raw).emit(result)

    for option in reversed(_LOCAL_OPTIONS):
        run = option(run)
    return run


def on_terminal() -> bool:
    """Whether stderr is a terminal, where progress is drawn."""
    return sys.stderr.isatty()


class ProgressLine:
    """One line on stderr, redrawn, when stderr is a terminal; nothing otherwise."""

    def __init__(self) -> None:
        self.shown = on_terminal()
        self._drawn = False

    def __call__(self, verb: str, step: Transfer) -> None:
        if not self.shown:
            return
        of = f" of {step.total}" if step.total is not None else ""
        click.echo(
            f"\r  {verb} {step.cases}{of} cases, {_size(step.bytes)}\x1b[K", nl=False, err=True
        )
        self._drawn = True

    def done(self) -> None:
        """End the progress line."""
        if self._drawn:
            click.echo("", err=True)
            self._drawn = False


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / 1024 / 1024:.1f} MB"


def split_reference(reference: str) -> tuple[str, str]:
    """`<testSetId>@<version>` as (id, version)."""
    test_set_id, at, version = reference.rpartition("@")
    if not at or not test_set_id or not version:
        raise click.UsageError(
            f"{reference!r}: give <testSetId>@<version>, such as acme.picks@1.0.0"
        )
    return test_set_id, version


def _checked(where: str, flag: str, insecure: bool) -> str:
    try:
        return check_url(where, insecure=insecure)
    except UnsafeUrl as error:
        raise ApiError("invalid-request", f"--{flag}: {error}", 400) from None


def _checked_token(token: str | None) -> str | None:
    try:
        return None if token is None else check_token(token)
    except BadToken as error:
        raise ApiError("invalid-request", f"--token: {error}", 400) from None


def _remote_failure(error: RemoteError) -> ApiError:
    return ApiError(error.code if error.status else "network", str(error), error.status)


@click.command("pull")
@click.argument("reference", metavar="<testSetId>@<version>")
@click.option("--from", "source", required=True, help="The other runtime's base URL.")
@_moving
def pull(
    api: Api, progress: ProgressLine, reference: str, source: str, token: str | None, insecure: bool
) -> JSON:
    """Pull a version from another runtime: kept here read-only, as the same id and version."""
    test_set_id, version = split_reference(reference)
    _checked(source, "from", insecure)
    path = f"/v1/test-sets/{in_path(test_set_id)}/versions/{in_path(version)}/pull"
    body = {"from": source, "token": token, "insecure": insecure}
    if not progress.shown:
        return api.call("POST", path, json=body)
    try:
        return _last_line(api.lines("POST", path, json=body), progress)
    finally:
        progress.done()


def _last_line(lines: Iterator[JSON], progress: ProgressLine) -> JSON:
    """Draw each progress line; the answer's line as the answer, or its error."""
    for line in lines:
        step = member(line, "progress")
        if step:
            cases, total, sent = step["cases"], step.get("total"), step["bytes"]
            if isinstance(cases, int) and isinstance(sent, int):
                whole = total if isinstance(total, int) else None
                progress("pulled", Transfer(cases, whole, sent))
        elif isinstance(line, dict) and "result" in line:
            return line["result"]
        elif isinstance(line, dict) and "error" in line:
            status = line.get("status")
            raise error_of(status if isinstance(status, int) and status else 500, line)
    raise ApiError("network", "the pull's answer ended before it said how it went", 0)


@click.command("push")
@click.argument("reference", metavar="<testSetId>@<version>")
@click.option("--to", "target", required=True, help="The other runtime's base URL.")
@click.option("--dry-run", is_flag=True, help="Say what would be sent, and send nothing.")
@_moving
def push(
    api: Api,
    progress: ProgressLine,
    reference: str,
    target: str,
    token: str | None,
    insecure: bool,
    dry_run: bool,
) -> JSON:
    """Publish a local version to another runtime's registry (kind `corrections`)."""
    test_set_id, version = split_reference(reference)
    where = _checked(target, "to", insecure)
    token = _checked_token(token)
    cases = _local_cases(api, test_set_id, version)
    spec: JSONObject = {"cases": cases}
    size = len(json.dumps(spec, separators=(",", ":"), ensure_ascii=False).encode())
    plan: JSONObject = {
        "testSetId": test_set_id,
        "version": version,
        "to": where,
        "cases": len(cases),
        "bytes": size,
        "agents": _agents_named(cases),
    }
    if dry_run:
        return {**plan, "dryRun": True}
    try:
        stored, created = asyncio.run(
            _publish(where, token, insecure, test_set_id, version, spec, progress)
        )
    except RemoteError as error:
        raise _remote_failure(error) from None
    finally:
        progress.done()
    return {**plan, "published": created, "entry": {k: v for k, v in stored.items() if k != "spec"}}


async def _publish(
    where: str,
    token: str | None,
    insecure: bool,
    test_set_id: str,
    version: str,
    spec: JSONObject,
    progress: ProgressLine,
) -> tuple[JSONObject, bool]:
    async with Remote(where, token, insecure=insecure) as remote:
        entry: JSONObject = {
            "id": test_set_id,
            "tenantId": await remote.tenant_id(),
            "version": version,
            "kind": "corrections",
            "spec": spec,
        }
        return await remote.publish(entry, lambda step: progress("pushed", step))


def _local_cases(api: Api, test_set_id: str, version: str) -> list[JSON]:
    """Every case of the local version, in stored order."""
    path = f"/v1/test-sets/{in_path(test_set_id)}/versions/{in_path(version)}/cases"
    cases: list[JSON] = []
    cursor: str | None = None
    while True:
        page = an_object(api.call("GET", path, params={"limit": 100, "cursor": cursor}))
        cases.extend(objects_of(page["data"]))
        if not page.get("hasMore"):
            return cases
        cursor = str(page["nextCursor"])


def _agents_named(cases: list[JSON]) -> list[JSON]:
    """The agents the cases' runs ran, each with the versions they ran."""
    named: dict[str, set[str]] = {}
    for case in objects_of(cases):
        run = member(case, "run")
        subject = member(case, "subject")
        agent = run.get("agentId") or subject.get("id")
        made_on = case.get("madeOn") or run.get("agentVersion") or subject.get("version")
        if agent:
            named.setdefault(str(agent), set()).update([str(made_on)] if made_on else [])
    return [{"agentId": a, "versions": [*sorted(v)]} for a, v in sorted(named.items())]
