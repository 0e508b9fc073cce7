"""An eval run's gate verdict, beside its **Make it live** button: what the agent's gate
policy says of the version tried, judged on this run, for the run's project."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain.errors import KindgiError
from ..domain.gate_specs import GateCheck
from ..domain.live import LiveScope
from ..domain.results import ComparisonResult
from ..services import eval_runs, promotions
from .web import Visit

OUTCOMES = {
    "would-promote": "The gate would let this version go live.",
    "needs-approval": "The gate passes; a reviewer's approval then makes this version live.",
    "gate-failed": "The gate would refuse this version:",
}


@dataclass(frozen=True)
class GateView:
    """What the eval run's page shows of the gate: the verdict (when a policy applies), the
    checks, and whether the button can promote."""

    agent_id: str
    version: str
    live: str
    policy: str | None
    outcome: str
    said: str
    checks: list[GateCheck]

    @property
    def failures(self) -> list[GateCheck]:
        """The checks that failed."""
        return [c for c in self.checks if not c.passed]


def candidate(record: eval_runs.EvalRun) -> tuple[str, str] | None:
    """The agent version a finished comparison tried, or None (a flow, or no summary)."""
    result = record.result
    if record.status != "completed" or not isinstance(result, ComparisonResult):
        return None
    tried = result.summary.candidate
    if tried.kind != "agent" or tried.agent_id is None or tried.version is None:
        return None
    return tried.agent_id, tried.version


def gate_view(visit: Visit, record: eval_runs.EvalRun) -> GateView | None:
    """The gate's verdict on the version the run tried, for the run's project; None for a
    run that tried no agent version, or whose version can't be promoted."""
    tried = candidate(record)
    if tried is None:
        return None
    agent_id, version = tried
    asked = promotions.Asked(version, scope_of(record), eval_run_id=record.run_id)
    try:
        found = promotions.check(visit.ctx, agent_id, asked)
    except KindgiError:
        return None
    result = found.result
    policy = None if found.policy is None else f"{found.policy.id} {found.policy.version}"
    return GateView(
        agent_id, version, found.serving.version, policy, result.outcome,
        OUTCOMES[result.outcome], result.checks,
    )  # fmt: skip


def scope_of(record: eval_runs.EvalRun) -> LiveScope:
    """Where the run's version would go live: the run's project (as the button asks)."""
    return LiveScope("project", project_id=record.project_id)
