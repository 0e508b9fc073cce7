"""The instance's identity and default project, made on the first start and kept after."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from ..domain.errors import Forbidden
from ..domain.time import now_iso
from ..store import instance, keys, projects
from ..store.db import Database
from ..store.instance import Identity
from ..store.projects import Project
from .context import Caller, Context


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
        project_id = str(uuid.uuid4())
        default = Project(project_id, identity.tenant_id, "Default", "default", True, now, now)
        projects.insert(db, default)
        return identity


def caller_of_token(ctx: Context, token: str) -> Caller | None:
    """Whom a bearer token acts for: the instance's own token is its user, an admin; a key
    minted with `mint_key` is its user, a member; any other token is no one."""
    if hmac.compare_digest(token.encode(), ctx.identity.token.encode()):
        return Caller("user", ctx.identity.user_id)
    found = keys.key_of(ctx.db, _hash(token))
    if found is None or found.tenant_id != ctx.tenant_id:
        return None
    return Caller(found.principal_kind, found.user_id, found.role)


def require_admin(ctx: Context, what: str) -> None:
    """403 `permission-denied` unless the caller is the tenant's admin (the instance's token)."""
    if ctx.caller.role != "admin":
        raise Forbidden(f"{what} needs admin on the tenant: use the instance's own token.")


@dataclass(frozen=True)
class MintedKey:
    """A new key and its text, shown only this once."""

    id: str
    user_id: str
    role: str
    created_by: str
    created_at: str
    token: str
    label: str | None = None
    kind: str = "user"


def mint_key(
    ctx: Context, user_id: str, role: str, label: str | None, *, kind: str = "user"
) -> MintedKey:
    """A new API key acting for `user_id` (the way to be a second person locally, e.g. a
    reviewer who isn't the one who asked), or for a service account (`kind`), whose runs
    no person started; only the tenant's admin mints one."""
    require_admin(ctx, "Minting a key")
    token = new_token()
    key = keys.MintedKey(
        str(uuid.uuid4()),
        _hash(token),
        ctx.tenant_id,
        user_id,
        role,
        f"user:{ctx.caller.id}",
        now_iso(),
        label,
        kind,
    )
    keys.insert_key(ctx.db, key)
    return MintedKey(key.id, user_id, role, key.created_by, key.created_at, token, label, kind)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Whoami:
    """Who the instance's token is."""

    tenant_id: str
    user_id: str
    scopes: tuple[str, ...]


def whoami(ctx: Context) -> Whoami:
    """The instance's token is its tenant's admin, allowed everything; a minted key acts for
    its own user, as a member."""
    caller = ctx.caller
    return Whoami(ctx.identity.tenant_id, caller.id, ("*",) if caller.role == "admin" else ())
