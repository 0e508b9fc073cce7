"""Releases: a scope's live version (its pin), and the history of changes to it.

A promotion pins a version live for a scope once its gate passes (or a reviewer approves
it); a rollback puts the scope back on its previous version, an unpin removes its own pin.
Each is one `Promotion` row, kept for good.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gate_specs import GateCheck
from .live import LiveScope

PROMOTE, ROLLBACK, UNPIN = "promote", "rollback", "unpin"
PROMOTED, PENDING, REFUSED = "promoted", "pending-approval", "refused"
SUPERSEDED, REJECTED = "superseded", "rejected"
PIN_IN_PLACE = "pinInPlace"
"""The one check of a promotion that changes nothing runs get, so its gate doesn't apply."""


@dataclass(frozen=True)
class Requester:
    """Who asked for a change: a user (or a service)."""

    kind: str
    id: str


@dataclass(frozen=True)
class PolicyRef:
    """The gate policy version a promotion was checked against."""

    id: str
    version: str


@dataclass(frozen=True)
class LivePin:
    """A version pinned live for a scope, and the change that set it."""

    agent_id: str
    scope: LiveScope
    version: str
    promotion_id: str
    set_at: str


@dataclass(frozen=True)
class Promotion:
    """One change of a scope's live version: what was pinned before and after, who asked and
    why; a `promote` row also has its status, the policy and checks, and its approval."""

    id: str
    agent_id: str
    scope: LiveScope
    action: str
    from_version: str | None
    to_version: str | None
    requested_by: Requester
    created_at: str
    reason: str | None = None
    eval_run_id: str | None = None
    status: str | None = None
    policy: PolicyRef | None = None
    checks: list[GateCheck] | None = None
    approval_id: str | None = None
    resolved_at: str | None = None


def previous_version(pin: LivePin, setter: Promotion | None) -> str | None:
    """The version a rollback with no `toVersion` goes back to: what the scope had pinned
    before the change that set its pin (None when that was its first pin)."""
    if setter is None or setter.to_version != pin.version:
        return None
    return setter.from_version
