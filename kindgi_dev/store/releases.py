"""Live pins (the version live per agent and scope) and the promotions history."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..domain.releases import UNPIN, LivePin, PolicyRef, Promotion, Requester
from .db import Database
from .jsoncol import Codec, dump, load
from .query import SQLValue, Where
from .release_json import checks_json, checks_of, scope_json, scope_of

_REQUESTER = Codec(Requester)
_POLICY = Codec(PolicyRef)
_PIN_COLUMNS = "agent_id, scope, version, promotion_id, set_at"
_COLUMNS = (
    "seq, id, agent_id, scope, action, from_version, to_version, requested_by, reason, "
    "eval_run_id, created_at, status, policy, checks, approval_id, resolved_at"
)


def _pin(row: sqlite3.Row) -> LivePin:
    return LivePin(
        row["agent_id"],
        scope_of(load(row["scope"])),
        row["version"],
        row["promotion_id"],
        row["set_at"],
    )


def pins(db: Database, tenant_id: str, agent_id: str) -> list[LivePin]:
    """Every pin of an agent, oldest first."""
    rows = db.all(
        f"SELECT {_PIN_COLUMNS} FROM live_pins WHERE tenant_id = ? AND agent_id = ? "
        "ORDER BY set_at, scope_key",
        (tenant_id, agent_id),
    )
    return [_pin(row) for row in rows]


def pinned_agents(db: Database, tenant_id: str) -> list[LivePin]:
    """Every pin of every agent."""
    rows = db.all(
        f"SELECT {_PIN_COLUMNS} FROM live_pins WHERE tenant_id = ? ORDER BY agent_id, set_at",
        (tenant_id,),
    )
    return [_pin(row) for row in rows]


def set_pin(db: Database, tenant_id: str, pin: LivePin) -> None:
    """Pin a version for a scope (replacing the scope's pin)."""
    db.run(
        "INSERT OR REPLACE INTO live_pins "
        "(tenant_id, agent_id, scope_key, scope, version, promotion_id, set_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            tenant_id,
            pin.agent_id,
            pin.scope.key,
            dump(scope_json(pin.scope)),
            pin.version,
            pin.promotion_id,
            pin.set_at,
        ),
    )


def remove_pin(db: Database, tenant_id: str, agent_id: str, scope_key: str) -> None:
    """Remove a scope's own pin."""
    db.run(
        "DELETE FROM live_pins WHERE tenant_id = ? AND agent_id = ? AND scope_key = ?",
        (tenant_id, agent_id, scope_key),
    )


def _promotion(row: sqlite3.Row) -> Promotion:
    by = _REQUESTER.load(row["requested_by"])
    if by is None:
        raise ValueError("a promotion is stored with who asked for it")
    checks = load(row["checks"])
    return Promotion(
        id=row["id"],
        agent_id=row["agent_id"],
        scope=scope_of(load(row["scope"])),
        action=row["action"],
        from_version=row["from_version"],
        to_version=row["to_version"],
        requested_by=by,
        created_at=row["created_at"],
        reason=row["reason"],
        eval_run_id=row["eval_run_id"],
        status=row["status"],
        policy=_POLICY.load(row["policy"]),
        checks=None if checks is None else checks_of(checks),
        approval_id=row["approval_id"],
        resolved_at=row["resolved_at"],
    )


def insert(db: Database, tenant_id: str, promotion: Promotion) -> None:
    """Record a change (or a refused or waiting promotion)."""
    db.run(
        "INSERT INTO promotions (id, tenant_id, agent_id, scope, scope_key, action, "
        "from_version, to_version, requested_by, reason, eval_run_id, created_at, status, "
        "policy, checks, approval_id, resolved_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            promotion.id,
            tenant_id,
            promotion.agent_id,
            dump(scope_json(promotion.scope)),
            promotion.scope.key,
            promotion.action,
            promotion.from_version,
            promotion.to_version,
            _REQUESTER.dump(promotion.requested_by),
            promotion.reason,
            promotion.eval_run_id,
            promotion.created_at,
            promotion.status,
            _POLICY.dump(promotion.policy),
            None if promotion.checks is None else dump(checks_json(promotion.checks)),
            promotion.approval_id,
            promotion.resolved_at,
        ),
    )


def resolve(db: Database, promotion_id: str, status: str, at: str) -> None:
    """A waiting promotion's final state."""
    db.run(
        "UPDATE promotions SET status = ?, resolved_at = ? WHERE id = ?", (status, at, promotion_id)
    )


def set_approval(db: Database, promotion_id: str, approval_id: str) -> None:
    """The approval a waiting promotion waits on now (after an escalation)."""
    db.run("UPDATE promotions SET approval_id = ? WHERE id = ?", (approval_id, promotion_id))


def unpinned_since(db: Database, tenant_id: str, agent_id: str, scope_key: str, at: str) -> bool:
    """Whether the scope's own pin was removed (an `unpin`) after `at`."""
    row = db.one(
        "SELECT 1 FROM promotions WHERE tenant_id = ? AND agent_id = ? AND scope_key = ? "
        "AND action = ? AND created_at > ? LIMIT 1",
        (tenant_id, agent_id, scope_key, UNPIN, at),
    )
    return row is not None


def get(db: Database, tenant_id: str, promotion_id: str) -> Promotion | None:
    """One promotion."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM promotions WHERE tenant_id = ? AND id = ?",
        (tenant_id, promotion_id),
    )
    return None if row is None else _promotion(row)


def list_page(
    db: Database,
    tenant_id: str,
    agent_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    scope_key: str | None = None,
) -> list[tuple[int, Promotion]]:
    """Up to `limit + 1` of an agent's promotions, newest first, each with its position."""
    where = Where("tenant_id = ? AND agent_id = ?", tenant_id, agent_id)
    where.equal({"scope_key": scope_key})
    if after:
        where.add("seq < ?", after[0])
    rows = db.all(
        f"SELECT {_COLUMNS} FROM promotions WHERE {where} ORDER BY seq DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [(row["seq"], _promotion(row)) for row in rows]
