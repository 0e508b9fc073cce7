"""Rolling a scope back to its previous live version (or one named), and unpinning it so
its runs follow the scope above. Neither is gated; each is recorded like a promotion."""

from __future__ import annotations

import uuid

from ..domain.errors import Conflict
from ..domain.live import LiveScope
from ..domain.releases import ROLLBACK, UNPIN, LivePin, Promotion, Requester, previous_version
from ..domain.time import now_iso
from ..store import releases as store
from . import gate_policies, live
from .context import Context
from .promotions import active_version


def _pinned(ctx: Context, agent_id: str, scope: LiveScope) -> LivePin:
    """The scope's own pin; 409 `not-pinned` without one."""
    live.check_scope(ctx, scope)
    pin = live.own_pin(ctx, agent_id, scope)
    if pin is None:
        raise Conflict(
            f"{agent_id} has no version pinned for {scope.describe()}.",
            code="not-pinned",
            agentId=agent_id,
        )
    return pin


def rollback(
    ctx: Context, agent_id: str, scope: LiveScope, to_version: str | None, reason: str | None
) -> Promotion:
    """Put the scope back on the version it had before its pin was set, or on `to_version`;
    409 `nothing-to-roll-back` when there is none (or it is live already)."""
    with ctx.db.transaction():
        pin = _pinned(ctx, agent_id, scope)
        target = to_version
        if target is None:
            target = previous_version(pin, store.get(ctx.db, ctx.tenant_id, pin.promotion_id))
        if target is None or target == pin.version:
            said = "it was the scope's first pin" if target is None else "it is live already"
            raise Conflict(
                f"Nothing to roll {agent_id} back to for {scope.describe()}: {said}.",
                code="nothing-to-roll-back",
                agentId=agent_id,
            )
        active_version(ctx, agent_id, target)
        row = _record(ctx, agent_id, scope, ROLLBACK, pin.version, target, reason)
        store.set_pin(ctx.db, ctx.tenant_id, LivePin(agent_id, scope, target, row.id, now_iso()))
    return row


def unpin(ctx: Context, agent_id: str, scope: LiveScope, reason: str | None) -> Promotion:
    """Remove the scope's own pin: its runs take the scope above's (or the latest version);
    409 `gate-policy-needs-pin` for a scope its own gate policy guards."""
    with ctx.db.transaction():
        pin = _pinned(ctx, agent_id, scope)
        guarded = gate_policies.resolve(ctx, agent_id, scope)
        if guarded is not None and guarded.scope.key == scope.key:
            raise Conflict(
                f"Gate policy {guarded.id} guards {agent_id} for {scope.describe()}, and a gated "
                "scope keeps its own pin: roll back instead, or unregister the policy first.",
                code="gate-policy-needs-pin",
                policyId=guarded.id,
            )
        row = _record(ctx, agent_id, scope, UNPIN, pin.version, None, reason)
        store.remove_pin(ctx.db, ctx.tenant_id, agent_id, scope.key)
    return row


def _record(
    ctx: Context,
    agent_id: str,
    scope: LiveScope,
    action: str,
    from_version: str,
    to_version: str | None,
    reason: str | None,
) -> Promotion:
    """Record a rollback or an unpin in the history."""
    row = Promotion(
        id=str(uuid.uuid4()),
        agent_id=agent_id,
        scope=scope,
        action=action,
        from_version=from_version,
        to_version=to_version,
        requested_by=Requester(ctx.caller.kind, ctx.caller.id),
        created_at=now_iso(),
        reason=reason,
    )
    store.insert(ctx.db, ctx.tenant_id, row)
    return row
