"""Guardrail outcomes: one row per check of a live turn, counted over a window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .db import Database


@dataclass(frozen=True)
class Outcome:
    """What one guardrail's check came to on one turn."""

    guardrail_id: str
    run_id: str
    agent_id: str
    agent_version: str
    outcome: str
    at: str


def add(db: Database, tenant_id: str, project_id: str, outcomes: Sequence[Outcome]) -> None:
    """Keep a turn's check outcomes."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO guardrail_outcomes (tenant_id, project_id, guardrail_id, run_id, "
            "agent_id, agent_version, outcome, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    tenant_id,
                    project_id,
                    o.guardrail_id,
                    o.run_id,
                    o.agent_id,
                    o.agent_version,
                    o.outcome,
                    o.at,
                )
                for o in outcomes
            ],
        )


def in_window(
    db: Database, tenant_id: str, guardrail_id: str, project_id: str, since: str, until: str
) -> list[Outcome]:
    """A guardrail's outcomes in a project between two times (inclusive), newest first."""
    rows = db.all(
        "SELECT guardrail_id, run_id, agent_id, agent_version, outcome, at FROM "
        "guardrail_outcomes WHERE tenant_id = ? AND guardrail_id = ? AND project_id = ? "
        "AND at >= ? AND at <= ? ORDER BY at DESC, seq DESC",
        (tenant_id, guardrail_id, project_id, since, until),
    )
    return [Outcome(*row) for row in rows]


def earliest(db: Database, tenant_id: str, guardrail_id: str, project_id: str) -> str | None:
    """When the first outcome kept for a guardrail in a project was recorded."""
    row = db.one(
        "SELECT min(at) FROM guardrail_outcomes WHERE tenant_id = ? AND guardrail_id = ? "
        "AND project_id = ?",
        (tenant_id, guardrail_id, project_id),
    )
    return None if row is None else row[0]
