"""`kindgi projects get-default|list|get|create`."""

from __future__ import annotations

import click

from ..domain.json import JSON
from .answers import an_object
from .command import api_command
from .http import Api, in_path


@click.group("projects", help="Projects: the default one, list, get, create.")
def projects() -> None:
    """Projects."""


@api_command(projects, "get-default", help="The default project.")
def get_default(api: Api) -> JSON:
    return api.call("GET", "/v1/projects/default")


@api_command(projects, "list", help="List projects.")
@click.option("--limit", type=click.IntRange(1, 100))
@click.option("--cursor")
@click.option("--name-contains")
def list_projects(
    api: Api, limit: int | None, cursor: str | None, name_contains: str | None
) -> JSON:
    params = {"limit": limit, "cursor": cursor, "nameContains": name_contains}
    return api.call("GET", "/v1/projects", params=params)


@api_command(projects, "get", help="One project.")
@click.argument("project_id")
def get(api: Api, project_id: str) -> JSON:
    return api.call("GET", f"/v1/projects/{in_path(project_id)}")


@api_command(projects, "create", help="Create a project and print it.")
@click.option("--name", required=True)
@click.option("--slug")
@click.option("--description")
@click.option("--org", help="The organisation (kindgi dev has none: the API refuses any).")
def create(api: Api, name: str, slug: str | None, description: str | None, org: str | None) -> JSON:
    body = {"name": name, "slug": slug or _slug(name), "description": description, "orgId": org}
    created = an_object(
        api.call("POST", "/v1/projects", json={k: v for k, v in body.items() if v}, idempotent=True)
    )
    return api.call("GET", f"/v1/projects/{in_path(created['id'])}")


def _slug(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return "-".join(part for part in cleaned.split("-") if part) or "project"
