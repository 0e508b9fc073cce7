"""What an eval run is set to try and how it compares, as records its row, the start and the
answer share: the candidate, the frozen test-set version it replays, and its settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .baselines import RECORDED, AskedBaseline
from .results import Baseline
from .sampling import Part

Reads = Literal["recorded", "live"]
ClassWeights = Literal["as-recorded", "restricted-only"]


@dataclass(frozen=True)
class AgentCandidate:
    """The agent version to try (its served version when none is named)."""

    agent_id: str
    version: str | None = None


@dataclass(frozen=True)
class FlowCandidate:
    """The flow version to try (its newest when none is named)."""

    flow_id: str
    version: str | None = None


@dataclass(frozen=True)
class FrozenVersion:
    """A frozen version of an agent's test set: its cases as they were when it was frozen."""

    test_set_id: str
    version: str


@dataclass(frozen=True)
class Sample:
    """Only one part of the cases: the hold-out share or the rest, split by a seed."""

    part: Part
    seed: str
    hold_out_share: float


@dataclass(frozen=True)
class RunSettings:
    """How an eval run compares: reads, repetitions, k, which verdicts count, the sample it
    ran on, a flow candidate's swaps, the run it rescored or resumed, the baseline asked for
    and, for a version baseline, the version it replays (`baseline_version`); whether it
    reuses earlier answers."""

    reads: Reads = "recorded"
    repetitions: int = 1
    k: int = 10
    class_weights: ClassWeights = "as-recorded"
    sample: Sample | None = None
    versions: dict[str, dict[str, str]] | None = None
    rescore_of: str | None = None
    baseline: AskedBaseline = RECORDED
    baseline_version: Baseline | None = None
    resume_of: str | None = None
    reuse: bool = False

    @property
    def restricted_only(self) -> bool:
        """Whether only verdicts given while their class was restricted count."""
        return self.class_weights == "restricted-only"
