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
