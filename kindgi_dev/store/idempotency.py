"""Stored answers to writes sent with an `Idempotency-Key`, replayed byte for byte."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.time import now_iso
from .db import Database


@dataclass(frozen=True)
class StoredAnswer:
    """What a write answered the first time, and the hash of the body it was sent."""

    body_hash: str
    status: int
    content_type: str
    body: bytes


def find(db: Database, key: str) -> StoredAnswer | None:
    """The answer stored under a key, if any."""
    row = db.one(
        "SELECT body_hash, status, content_type, body FROM idempotency_keys WHERE key = ?", (key,)
    )
    if row is None:
        return None
    return StoredAnswer(row["body_hash"], row["status"], row["content_type"], bytes(row["body"]))


def remember(db: Database, key: str, answer: StoredAnswer) -> None:
    """Keep a successful answer under its key."""
    db.run(
        "INSERT OR REPLACE INTO idempotency_keys "
        "(key, body_hash, status, content_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (key, answer.body_hash, answer.status, answer.content_type, answer.body, now_iso()),
    )
