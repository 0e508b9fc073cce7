"""API keys minted for other users than the instance's own, kept as the SHA-256 of their text."""

from __future__ import annotations

from dataclasses import dataclass

from .db import Database


@dataclass(frozen=True)
class StoredKey:
    """An API key minted for a user: kept as the SHA-256 of its text."""

    id: str
    token_hash: str
    tenant_id: str
    user_id: str
    role: str
    created_by: str
    created_at: str
    label: str | None = None
    principal_kind: str = "user"
    """`user`, or `service_account` (a key whose runs no person started)."""


def insert_key(db: Database, key: StoredKey) -> None:
    """Keep a minted key."""
    db.run(
        "INSERT INTO api_tokens (id, token_hash, tenant_id, user_id, role, label, created_by, "
        "created_at, principal_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            key.id,
            key.token_hash,
            key.tenant_id,
            key.user_id,
            key.role,
            key.label,
            key.created_by,
            key.created_at,
            key.principal_kind,
        ),
    )


def key_of(db: Database, token_hash: str) -> StoredKey | None:
    """The unrevoked key whose text hashes to `token_hash`."""
    row = db.one(
        "SELECT id, token_hash, tenant_id, user_id, role, label, created_by, created_at, "
        "principal_kind FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL",
        (token_hash,),
    )
    if row is None:
        return None
    return StoredKey(
        row["id"],
        row["token_hash"],
        row["tenant_id"],
        row["user_id"],
        row["role"],
        row["created_by"],
        row["created_at"],
        row["label"],
        row["principal_kind"],
    )
