"""The instance's identity: its tenant, its user and the dev token, kept across restarts."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.time import now_iso
from .db import Database


@dataclass(frozen=True)
class Identity:
    """Who this kindgi dev is: the tenant and user its one token speaks for."""

    tenant_id: str
    user_id: str
    token: str


def load(db: Database) -> Identity | None:
    """The stored identity, or None on a fresh database."""
    row = db.one("SELECT tenant_id, user_id, token FROM instance WHERE singleton = 1")
    return Identity(row["tenant_id"], row["user_id"], row["token"]) if row else None


def save(db: Database, identity: Identity) -> None:
    """Store the identity (once per database)."""
    db.run(
        "INSERT INTO instance (singleton, tenant_id, user_id, token, created_at) "
        "VALUES (1, ?, ?, ?, ?)",
        (identity.tenant_id, identity.user_id, identity.token, now_iso()),
    )


@dataclass(frozen=True)
class TenantRow:
    """The tenant's own fields: its name and slug, when it was made and last renamed."""

    name: str
    slug: str
    created_at: str
    updated_at: str


def tenant(db: Database) -> TenantRow:
    """The instance's tenant."""
    row = db.one(
        "SELECT tenant_name, tenant_slug, created_at, tenant_updated_at FROM instance"
        " WHERE singleton = 1"
    )
    assert row is not None, "the identity is made before anything is served"
    updated = row["tenant_updated_at"] or row["created_at"]
    return TenantRow(row["tenant_name"], row["tenant_slug"], row["created_at"], updated)


def rename_tenant(db: Database, name: str, slug: str, at: str) -> None:
    """Give the tenant a name and a slug."""
    db.run(
        "UPDATE instance SET tenant_name = ?, tenant_slug = ?, tenant_updated_at = ?"
        " WHERE singleton = 1",
        (name, slug, at),
    )
