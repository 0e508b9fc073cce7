"""The instance's identity and default project, made on the first start and kept after."""

from __future__ import annotations

import base64
import secrets
import uuid
from dataclasses import dataclass

from ..domain.time import now_iso
from ..store import instance, projects
from ..store.db import Database
from ..store.instance import Identity
from .context import Context


def new_token() -> str:
    """A dev token as the real `kindgi dev` mints one: `kgi_bt_` + 32 random bytes."""
    raw = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    return "kgi_bt_" + raw


def ensure(db: Database) -> Identity:
    """The stored identity, or a new one with its Default project on a fresh database."""
    with db.transaction():
        found = instance.load(db)
        if found is not None:
            return found
        identity = Identity(str(uuid.uuid4()), str(uuid.uuid4()), new_token())
        instance.save(db, identity)
        now = now_iso()
        projects.insert(
            db,
            {
                "id": str(uuid.uuid4()),
                "tenant_id": identity.tenant_id,
                "name": "Default",
                "slug": "default",
                "is_default": 1,
                "created_at": now,
                "updated_at": now,
            },
        )
        return identity


@dataclass(frozen=True)
class Whoami:
    """Who the instance's token is."""

    tenant_id: str
    user_id: str
    scopes: tuple[str, ...]


def whoami(ctx: Context) -> Whoami:
    """The one token kindgi dev has is its tenant's only user, allowed everything."""
    return Whoami(ctx.identity.tenant_id, ctx.identity.user_id, ("*",))
