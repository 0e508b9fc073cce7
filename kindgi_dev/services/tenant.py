"""The workspace (tenant) of this instance: read it, rename it."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.time import now_iso
from ..store import instance
from .context import Context


@dataclass(frozen=True)
class Tenant:
    """The tenant as a caller sees it: kindgi dev's one tenant may put projects in production."""

    id: str
    name: str
    slug: str
    created_at: str
    updated_at: str
    production_allowed: bool = True
    state: str = "active"


def get(ctx: Context) -> Tenant:
    """The instance's tenant."""
    row = instance.tenant(ctx.db)
    return Tenant(ctx.tenant_id, row.name, row.slug, row.created_at, row.updated_at)


def rename(ctx: Context, *, name: str | None, slug: str | None) -> None:
    """A new name, slug or both (a field not given stays); the same values change nothing."""
    with ctx.db.transaction():
        row = instance.tenant(ctx.db)
        new_name, new_slug = name or row.name, slug or row.slug
        if (new_name, new_slug) != (row.name, row.slug):
            instance.rename_tenant(ctx.db, new_name, new_slug, now_iso())
