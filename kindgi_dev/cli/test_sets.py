"""`kindgi test-sets list|show|versions|cases|pull|push`: the `/v1/test-sets` registry."""

from __future__ import annotations

import click

from ..domain.json import JSON
from ..domain.test_sets import REGISTRY_KINDS
from . import test_set_files, test_set_moves
from .command import api_command
from .http import Api, in_path
from .judgments import enum_value, require


@click.group("test-sets", help="Test sets: the registry, agents' test sets, suites built before.")
def test_sets() -> None:
    """The test-sets group."""


@api_command(
    test_sets,
    "list",
    help="Test sets, latest version each (--kind=corrections: "
    "the agents' test sets and the suites built before too).",
)
@click.option("--kind", help=f"One of {', '.join(REGISTRY_KINDS)}.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def list_sets(api: Api, kind: str | None, limit: int | None, cursor: str | None) -> JSON:
    """`GET /v1/test-sets`."""
    params = {"kind": enum_value(kind, "kind", REGISTRY_KINDS), "limit": limit, "cursor": cursor}
    return api.call("GET", "/v1/test-sets", params=params)


@api_command(test_sets, "show", help="One test set (its latest version).")
@click.argument("test_set_id")
def show(api: Api, test_set_id: str) -> JSON:
    """`GET /v1/test-sets/{id}`."""
    return api.call("GET", f"/v1/test-sets/{in_path(test_set_id)}")


@api_command(test_sets, "versions", help="A test set's versions, oldest first.")
@click.argument("test_set_id")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def versions(api: Api, test_set_id: str, limit: int | None, cursor: str | None) -> JSON:
    """`GET /v1/test-sets/{id}/versions`."""
    path = f"/v1/test-sets/{in_path(test_set_id)}/versions"
    return api.call("GET", path, params={"limit": limit, "cursor": cursor})


@api_command(test_sets, "cases", help="A version's cases, as they were when frozen or built.")
@click.argument("test_set_id")
@click.option("--version", "version_", help="The version (required).")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
def cases(
    api: Api, test_set_id: str, version_: str | None, limit: int | None, cursor: str | None
) -> JSON:
    """`GET /v1/test-sets/{id}/versions/{v}/cases`."""
    version = require(version_, "version", "version")
    path = f"/v1/test-sets/{in_path(test_set_id)}/versions/{in_path(version)}/cases"
    return api.call("GET", path, params={"limit": limit, "cursor": cursor})


test_sets.add_command(test_set_moves.pull)
test_sets.add_command(test_set_moves.push)
test_set_files.add_to(test_sets)
