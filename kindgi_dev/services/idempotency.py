"""Writes sent with an `Idempotency-Key`: the stored answer is replayed, a reuse refused.

A key is scoped to the tenant, the caller, the method and the path; the first answer under
it is kept with a hash of the body it was sent, and a key whose first request is still
running is held in memory so a second one is refused rather than run twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..domain.errors import Conflict
from ..store import idempotency as store
from ..store.idempotency import StoredAnswer
from .context import Context

__all__ = ["Claim", "StoredAnswer", "claim", "release", "remember"]


@dataclass(frozen=True)
class Claim:
    """A write's key, scoped to its caller and path, while it runs; and its body's hash."""

    scoped: str
    digest: str


def claim(
    ctx: Context, method: str, path: str, key: str, body: bytes
) -> Claim | StoredAnswer | None:
    """The stored answer to replay; else a `Claim` to run the write under; None while the
    first request with this key still runs. 409 when the key was used with another body."""
    scoped = "|".join((ctx.tenant_id, ctx.caller.id, method, path, key))
    digest = hashlib.sha256(body).hexdigest()
    stored = store.find(ctx.db, scoped)
    if stored is not None:
        if stored.body_hash != digest:
            raise Conflict(
                "This Idempotency-Key was used with another body.",
                code="idempotency-key-body-mismatch",
            )
        return stored
    if scoped in ctx.idempotency_in_flight:
        return None
    ctx.idempotency_in_flight.add(scoped)
    return Claim(scoped, digest)


def release(ctx: Context, held: Claim) -> None:
    """The write under this key has answered (or failed): another may run."""
    ctx.idempotency_in_flight.discard(held.scoped)


def remember(ctx: Context, held: Claim, status: int, content_type: str, body: bytes) -> None:
    """Keep a successful answer under its key, to replay byte for byte."""
    store.remember(ctx.db, held.scoped, StoredAnswer(held.digest, status, content_type, body))
