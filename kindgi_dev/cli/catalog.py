"""`kindgi agents|tools|flows list|get|versions`: the three catalog groups, from one definition.

The API serves the three kinds from one `catalog_endpoints`; these groups mirror it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import click

from ..domain.json import JSON
from .command import api_command
from .http import Api, QueryValue
from .output import Column


@dataclass(frozen=True)
class CatalogKind:
    """One kind the pack registers, as its group names and shows it."""

    name: str
    plural: str
    article: str
    columns: Sequence[Column]
    version_table: bool = True
    get_version: bool = False


def catalog_group(kind: CatalogKind) -> click.Group:
    """The group of one kind: `list`, `get`, `versions` (and `get-version` when asked)."""
    plural, id_arg = kind.plural, f"{kind.name}_id"
    path = f"/v1/{plural}"
    title = f"{kind.article} {kind.name}"
    group = click.Group(
        plural, help=f"{plural.capitalize()}: list them, get one, list its versions."
    )

    listing = f"List {plural} (the latest version of each)."

    @api_command(group, "list", columns=kind.columns, help=listing)
    @click.option("--name", help=f"Only {plural} whose id starts with this.")
    @click.option("--include-retired", is_flag=True, help=f"Also {plural} with no active version.")
    @click.option("--limit", type=click.IntRange(1, 100))
    @click.option("--cursor")
    def list_items(
        api: Api, name: str | None, include_retired: bool, limit: int | None, cursor: str | None
    ) -> JSON:
        params: dict[str, QueryValue] = {"name": name, "includeRetired": include_retired or None}
        params.update(limit=limit, cursor=cursor)
        return api.call("GET", path, params=params)

    @api_command(group, "get", help=f"{title}: its latest active version, or the version given.")
    @click.argument(id_arg)
    @click.argument("version", required=False)
    def get(api: Api, version: str | None, **ids: str) -> JSON:
        if version:
            return api.call("GET", f"{path}/{ids[id_arg]}/versions/{version}")
        return api.call("GET", f"{path}/{ids[id_arg]}")

    if kind.get_version:

        @api_command(group, "get-version", help=f"One version of a {kind.name}.")
        @click.argument(id_arg)
        @click.argument("version")
        def get_version(api: Api, version: str, **ids: str) -> JSON:
            return api.call("GET", f"{path}/{ids[id_arg]}/versions/{version}")

    version_columns = kind.columns if kind.version_table else None

    @api_command(
        group, "versions", columns=version_columns, help=f"{title}'s versions, lowest first."
    )
    @click.argument(id_arg)
    @click.option("--include-unregistered", is_flag=True, help="Also unregistered versions.")
    @click.option("--limit", type=click.IntRange(1, 100))
    @click.option("--cursor")
    def versions(
        api: Api, include_unregistered: bool, limit: int | None, cursor: str | None, **ids: str
    ) -> JSON:
        params: dict[str, QueryValue] = {"includeTombstoned": include_unregistered or None}
        params.update(limit=limit, cursor=cursor)
        return api.call("GET", f"{path}/{ids[id_arg]}/versions", params=params)

    return group
