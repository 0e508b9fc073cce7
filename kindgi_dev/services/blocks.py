"""Data blocks: publish, read, unregister and reinstate versions; and the settings an agent's
run pins (`domain.blocks`), which its tools read as `ctx.settings`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..domain import semver
from ..domain.blocks import Block, pin
from ..domain.errors import Conflict, NotFound, ValidationFailed
from ..domain.time import now_iso
from ..store import blocks as store
from . import projects
from .context import Context


@dataclass(frozen=True)
class Reinstated:
    """A version reinstated, and whether it was unregistered."""

    block_id: str
    version: str
    was_tombstoned: bool


def publish(
    ctx: Context,
    *,
    project_id: str,
    block_id: str,
    version: str,
    kind: str,
    content: dict[str, Any],
    description: str | None,
) -> Block:
    """Publish a version; 409 when the version is taken, the kind differs from the block's,
    or its project does; 400 when settings values don't satisfy its schema or the latest's."""
    project = projects.get(ctx, project_id).id
    with ctx.db.transaction():
        earlier = store.versions_of(ctx.db, ctx.tenant_id, [block_id])
        if earlier and earlier[0].kind != kind:
            raise Conflict(
                f"{block_id} is a {earlier[0].kind} block: its versions keep that kind.",
                code="block-kind-mismatch",
            )
        if earlier and earlier[0].project_id != project:
            raise Conflict(
                f"{block_id} belongs to project {earlier[0].project_id}: publish its versions"
                " there.",
                code="block-project-mismatch",
            )
        if kind == "settings":
            _check_values(content, _latest(earlier))
        block = Block(block_id, version, kind, content, project, now_iso(), description)
        if not store.insert(ctx.db, ctx.tenant_id, block):
            raise Conflict(
                f"{block_id} {version} is published already: versions never change.",
                code="block-already-registered",
            ) from None
    return block


def _check_values(content: Mapping[str, Any], latest: Block | None) -> None:
    """Settings values must satisfy their own schema and the latest version's."""
    from jsonschema import Draft202012Validator, SchemaError
    from referencing.exceptions import Unresolvable

    schemas = [("content/schema", content.get("schema"))]
    if latest is not None:
        schemas.append((f"the schema of {latest.version}", latest.content.get("schema")))
    for where, schema in schemas:
        if schema is None:
            continue
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            message = f"is not a JSON Schema: {error.message}"
            raise ValidationFailed("content/schema", message) from None
        try:
            problem = next(Draft202012Validator(schema).iter_errors(content["values"]), None)
        except Unresolvable as error:
            message = f"names a reference kindgi dev can't resolve: {error}"
            raise ValidationFailed("content/schema", message) from None
        if problem is not None:
            path = "/".join(str(p) for p in problem.absolute_path)
            field = "content/values" + (f"/{path}" if path else "")
            raise ValidationFailed(field, f"does not satisfy {where}: {problem.message}")


def _latest(versions: list[Block], *, active: bool = False) -> Block | None:
    shown = [b for b in versions if not active or b.unregistered_at is None]
    return max(shown, key=lambda b: semver.sort_key(b.version)) if shown else None


def list_latest(
    ctx: Context, *, kind: str | None, name: str | None, project_id: str | None
) -> list[Block]:
    """The latest active version of each block, by id."""
    by_id: dict[str, list[Block]] = {}
    for block in store.all_versions(ctx.db, ctx.tenant_id):
        by_id.setdefault(block.id, []).append(block)
    found = []
    for block_id, versions in by_id.items():
        latest = _latest(versions, active=True)
        if latest is None or (kind and latest.kind != kind):
            continue
        if (name and not block_id.startswith(name)) or (
            project_id and latest.project_id != project_id
        ):
            continue
        found.append(latest)
    return found


def versions(ctx: Context, block_id: str, *, include_tombstoned: bool) -> list[Block]:
    """A block's versions, newest first; 404 `block-not-found` when it has none."""
    found = store.versions_of(ctx.db, ctx.tenant_id, [block_id])
    if not found:
        raise NotFound("block", block_id)
    shown = [b for b in found if include_tombstoned or b.unregistered_at is None]
    return sorted(shown, key=lambda b: semver.sort_key(b.version), reverse=True)


def get(ctx: Context, block_id: str, project_id: str | None = None) -> Block:
    """The latest active version; 404 `block-not-found` when none (in that project)."""
    latest = _latest(store.versions_of(ctx.db, ctx.tenant_id, [block_id]), active=True)
    if latest is None or (project_id and latest.project_id != project_id):
        raise NotFound("block", block_id)
    return latest


def get_version(ctx: Context, block_id: str, version: str) -> Block:
    """One version, unregistered or not; 404 `block-not-found`."""
    for block in store.versions_of(ctx.db, ctx.tenant_id, [block_id]):
        if block.version == version:
            return block
    raise NotFound("block", f"{block_id}@{version}", id_field="block_id")


def unregister(ctx: Context, block_id: str, version: str) -> None:
    """No range picks the version any more; 409 when it is unregistered already."""
    with ctx.db.transaction():
        block = get_version(ctx, block_id, version)
        if block.unregistered_at is not None:
            raise Conflict(
                f"{block_id} {version} is unregistered already.",
                code="block-already-unregistered",
            )
        store.set_unregistered(ctx.db, ctx.tenant_id, block_id, version, now_iso())


def reinstate(ctx: Context, block_id: str, version: str) -> Reinstated:
    """The version back, unchanged; reinstating an active one changes nothing."""
    with ctx.db.transaction():
        block = get_version(ctx, block_id, version)
        if block.unregistered_at is not None:
            store.set_unregistered(ctx.db, ctx.tenant_id, block_id, version, None)
    return Reinstated(block_id, version, block.unregistered_at is not None)


def pins_of(ctx: Context, agent: Mapping[str, Any]) -> dict[str, str]:
    """The settings block versions a run of `agent` pins now: for each block it names, the
    highest active version in its range."""
    refs = [r for r in agent.get("settings") or [] if isinstance(r, Mapping)]
    if not refs:
        return {}
    ids = sorted({str(r.get("id")) for r in refs})
    return pin(refs, store.versions_of(ctx.db, ctx.tenant_id, ids))


def settings_of(ctx: Context, pins: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The values of pinned settings versions, by block id, as tools read them."""
    if not pins:
        return {}
    found = store.versions_of(ctx.db, ctx.tenant_id, sorted(pins))
    return {
        b.id: dict(values) if isinstance(values := b.content.get("values"), dict) else {}
        for b in found
        if pins.get(b.id) == b.version
    }
