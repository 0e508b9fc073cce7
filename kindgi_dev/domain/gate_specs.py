"""Gate policies: what a promotion must show before a version goes live for a scope, and
what each of its checks answers.

A policy's spec is records here, as the API's body and the store's JSON both read it; the
checks are made in `gates` (the comparison's) and `gate_scores` (its counts and metrics).
"""

from __future__ import annotations

from dataclasses import dataclass

from .live import LiveScope

ROLES = ("standard", "senior", "admin")
"""Reviewer roles, lowest first: a reviewer decides approvals of their rank or below."""

Value = float | str | None


@dataclass(frozen=True)
class SuiteRequirement:
    """The test set (or suite) the comparison must have run, at a version when given."""

    id: str
    version: str | None = None


@dataclass(frozen=True)
class ComparisonRequirement:
    """How recent the comparison must be, and on which test set."""

    max_age_hours: float | None = None
    suite: SuiteRequirement | None = None


@dataclass(frozen=True)
class EvidenceRequirement:
    """How many judged cases, and how much judgment weight, each gated metric must rest on."""

    min_cases: int | None = None
    min_weight: float | None = None


@dataclass(frozen=True)
class MetricRequirement:
    """One gated metric: the floor the candidate must reach, how far below the live version
    it may fall, and (precision at k) the cut-off the comparison must have used."""

    name: str
    k: int | None = None
    min_candidate: float | None = None
    max_drop: float | None = None


@dataclass(frozen=True)
class ReplayLimits:
    """The most diverged, errored and stopped cases, and refused writes, allowed (0 if unset)."""

    max_diverged: int | None = None
    max_errors: int | None = None
    max_refused_writes: int | None = None
    max_stopped: int | None = None


@dataclass(frozen=True)
class ApprovalRequirement:
    """A passing promotion waits for a reviewer of this role (default senior), who may not be
    the asker unless `separate_approver` is false."""

    role: str | None = None
    separate_approver: bool | None = None


@dataclass(frozen=True)
class GateSpec:
    """What a promotion must show. Every part is optional; an empty spec checks nothing."""

    comparison: ComparisonRequirement | None = None
    evidence: EvidenceRequirement | None = None
    metrics: tuple[MetricRequirement, ...] | None = None
    replay: ReplayLimits | None = None
    approvals: ApprovalRequirement | None = None
    only_restricted_classes: bool | None = None

    @property
    def needs_comparison(self) -> bool:
        """Whether a check of the spec reads a comparison, so a promotion must name one."""
        return (
            self.comparison is not None
            or self.evidence is not None
            or bool(self.metrics)
            or self.replay is not None
            or self.only_restricted_classes is True
        )


@dataclass(frozen=True)
class GateApproval:
    """The approval a passing promotion waits for."""

    role: str
    count: int
    separate_approver: bool


def approval_of(spec: GateSpec) -> GateApproval | None:
    """The approval a passing promotion waits for: one reviewer, `senior` and someone other
    than the asker unless the policy says otherwise."""
    if spec.approvals is None:
        return None
    wanted = spec.approvals
    separate = True if wanted.separate_approver is None else wanted.separate_approver
    return GateApproval(wanted.role or "senior", 1, separate)


@dataclass(frozen=True)
class GatePolicy:
    """One version of a gate policy: what a promotion of `agent_id` for `scope` must show."""

    id: str
    version: str
    agent_id: str
    scope: LiveScope
    spec: GateSpec
    created_at: str
    description: str | None = None
    unregistered_at: str | None = None


@dataclass(frozen=True)
class GateCheck:
    """One check: its stable name, whether it passed, and what was found against what."""

    name: str
    passed: bool
    message: str
    value: Value = None
    threshold: Value = None


def rounded(value: float) -> float:
    """Three decimals, as the checks show values."""
    return round(value * 1000) / 1000


def fmt(value: float) -> str:
    """A value in a sentence: three decimals at most, no trailing zeros."""
    return f"{rounded(value):g}"


def count(n: int, noun: str) -> str:
    """`1 case`, `2 cases`."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
