"""The catalog: agent, tool and flow versions registered from the pack, read as their manifests.

Every version the pack ever indexed stays readable, so runs and cases keep naming the version
they ran. A version that comes back with other content is updated in place, with a warning.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from ..domain.catalog import Kind
from ..domain.errors import Gone, NotFound
from ..domain.flows import FlowDefinition, problems
from ..domain.paging import Page, clamp_limit, decode_cursor, make_page
from ..domain.semver import sort_key
from ..domain.time import now_iso
from ..runtime.pack import PackIndex
from ..store import catalog
from ..store.catalog import CatalogVersion
from .context import Context

KINDS: tuple[Kind, ...] = ("tool", "agent", "flow")
_PRIVATE = {
    "agent": ("modulePath", "projectId"),
    "tool": ("modulePath", "projectId"),
    "flow": ("modulePath", "projectId", "kernelPayloadVersion"),
}


def manifest_of(kind: Kind, entry: dict[str, Any], pack_version: str) -> dict[str, Any]:
    """The manifest a version is registered with: the pack's own `index.json` entry, kept in the
    pack's vocabulary, without the pack-private fields and with the defaults a version needs."""
    manifest = {k: v for k, v in entry.items() if k not in _PRIVATE[kind]}
    if kind == "agent":
        manifest.setdefault("retrieval", [])
        manifest.setdefault("guardrails", [])
    elif kind == "tool":
        manifest.setdefault("version", pack_version)
        if not manifest.get("description"):
            manifest["description"] = manifest["id"]
    return manifest


def register(ctx: Context, index: PackIndex) -> list[str]:
    """Register every new version of the index; warning lines for versions whose content changed."""
    warnings: list[str] = []
    now = now_iso()
    with ctx.db.transaction():
        for kind, entries in zip(KINDS, (index.tools, index.agents, index.flows), strict=True):
            for entry in entries:
                refused = flow_problem(entry) if kind == "flow" else None
                if refused is not None:
                    warnings.append(refused)
                    continue
                manifest = manifest_of(kind, entry, index.pack_version)
                if _store(ctx, kind, manifest, now):
                    warnings.append(
                        f"⚠ {kind} {manifest['id']} {manifest['version']} changed without a new "
                        "version: runs recorded under it ran other content"
                    )
    return warnings


def flow_problem(entry: dict[str, Any]) -> str | None:
    """Why a flow version can't be registered (a node kind kindgi dev doesn't run, bad wiring)."""
    found = problems(FlowDefinition.from_manifest(entry))
    if not found:
        return None
    where = entry.get("modulePath") or "the pack"
    return f"✗ {where}: flow {entry['id']} {entry['version']} is not registered: " + "; ".join(
        found
    )


def _store(ctx: Context, kind: Kind, entry: dict[str, Any], now: str) -> bool:
    """Insert a new version, or update a known one whose content differs; True if it differed."""
    manifest = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(manifest.encode()).hexdigest()
    existing = catalog.get(ctx.db, kind, entry["id"], entry["version"])
    if existing is None:
        new = CatalogVersion(entry["id"], entry["version"], manifest, digest, now, now)
        catalog.insert(ctx.db, kind, new)
        return False
    if existing.content_hash == digest:
        return False
    catalog.update_content(ctx.db, kind, entry["id"], entry["version"], manifest, digest, now)
    return True


def get_agent(ctx: Context, agent_id: str, version: str | None = None) -> dict[str, Any]:
    """An agent version (the latest active one when no version is named); 404 `agent-not-found`."""
    return get(ctx, "agent", agent_id, version)


def get_tool(ctx: Context, tool_id: str, version: str | None = None) -> dict[str, Any]:
    """A tool version (latest active when none is named); 404 `tool-not-found`, 410 `tool-gone`."""
    return get(ctx, "tool", tool_id, version)


def get_flow(ctx: Context, flow_id: str, version: str | None = None) -> dict[str, Any]:
    """A flow version (the latest active one when no version is named); 404 `flow-not-found`."""
    return get(ctx, "flow", flow_id, version)


def get(ctx: Context, kind: Kind, item_id: str, version: str | None = None) -> dict[str, Any]:
    """One version, unregistered ones included; without a version, the highest active one."""
    if version is not None:
        row = catalog.get(ctx.db, kind, item_id, version)
        if row is None:
            raise missing(kind, item_id, version)
        return catalog.manifest_of(row)
    rows = catalog.versions(ctx.db, kind, item_id)
    active = [row for row in rows if not row.unregistered_at]
    if not active:
        if rows and kind == "tool":
            raise Gone(
                f"Every version of tool {item_id} is unregistered.",
                code="tool-gone",
                toolId=item_id,
            )
        raise missing(kind, item_id)
    return catalog.manifest_of(_highest(active))


def list_page(
    ctx: Context,
    kind: Kind,
    *,
    limit: int | None,
    cursor: str | None,
    name: str | None,
    include_retired: bool,
) -> Page[dict[str, Any]]:
    """The latest version of each id, by id; retired ids (no active version) only when asked."""
    size = clamp_limit(limit)
    after = decode_cursor(cursor)
    ids = catalog.page_ids(
        ctx.db,
        kind,
        prefix=name,
        after=str(after[0]) if after else None,
        limit=size + 1,
        active_only=not include_retired,
    )
    page = make_page(ids, size, lambda item_id: [item_id])
    by_id: dict[str, list[Any]] = {item_id: [] for item_id in page.items}
    for row in catalog.versions_of(ctx.db, kind, page.items):
        by_id[row.id].append(row)
    latest = []
    for rows in by_id.values():
        active = [row for row in rows if not row.unregistered_at]
        latest.append(catalog.manifest_of(_highest(active or rows)))
    return Page(latest, page.has_more, page.next_cursor)


def list_versions(
    ctx: Context,
    kind: Kind,
    item_id: str,
    *,
    limit: int | None,
    cursor: str | None,
    include_tombstoned: bool,
) -> Page[dict[str, Any]]:
    """An id's versions in ascending semver; unregistered ones only when asked; 404 if unknown."""
    size = clamp_limit(limit)
    after = decode_cursor(cursor)
    rows = catalog.versions(ctx.db, kind, item_id)
    if not rows:
        raise missing(kind, item_id)
    shown = [row for row in rows if include_tombstoned or not row.unregistered_at]
    shown.sort(key=lambda row: version_key(row.version))
    if after:
        start = version_key(str(after[0]))
        shown = [row for row in shown if version_key(row.version) > start]
    page = make_page(shown[: size + 1], size, lambda row: [row.version])
    return page.map(catalog.manifest_of)


def unregister(ctx: Context, kind: Kind, item_id: str, version: str) -> None:
    """Mark a version unregistered: it stays readable, but is no longer the latest of its id."""
    if catalog.set_unregistered(ctx.db, kind, item_id, version, now_iso()) == 0:
        raise missing(kind, item_id, version)


def missing(kind: Kind, item_id: str, version: str | None = None) -> NotFound:
    """404 `<kind>-not-found` naming the id (and the version asked for)."""
    error = NotFound(kind, item_id)
    if version is not None:
        error.message = f"{kind.capitalize()} {item_id} has no version {version}."
        error.details["version"] = version
        error.args = (error.message,)
    return error


def version_key(version: str) -> tuple[Any, ...]:
    """Semver order; a version that isn't semver sorts before every one that is."""
    try:
        return sort_key(version)
    except ValueError:
        return (-1, -1, -1, 0, ((1, 0, version),))


def _highest(rows: Iterable[CatalogVersion]) -> CatalogVersion:
    """The row of the highest version."""
    return max(rows, key=lambda row: version_key(row.version))


def content_updated_at(ctx: Context, kind: Kind, item_id: str, version: str) -> str | None:
    """When a version's content was last saved (its registration, or an edit in place)."""
    row = catalog.get(ctx.db, kind, item_id, version)
    return None if row is None else row.updated_at


def new_agent_versions(ctx: Context, index: PackIndex) -> list[tuple[str, str]]:
    """The agent versions of `index` not registered yet: (id, version)."""
    return [
        (str(entry["id"]), str(entry["version"]))
        for entry in index.agents
        if catalog.get(ctx.db, "agent", str(entry["id"]), str(entry["version"])) is None
    ]
