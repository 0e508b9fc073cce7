"""What starting an eval run asks for, as a typed record the api and the console build."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...domain.baselines import RECORDED, AskedBaseline
from ...domain.eval_runs import (
    AgentCandidate,
    ClassWeights,
    FlowCandidate,
    Reads,
    RunSettings,
    Sample,
)
from ..flow_runs import Overrides


@dataclass(frozen=True)
class StartRequest:
    """How to try a version: the project, the candidate, and the comparison's settings.

    `baseline` is the recorded runs, another version or the live one (`domain.baselines`);
    `override_settings`/`override_prompts` name the blocks a caller asked to override,
    which kindgi dev refuses, saying why.
    """

    project_id: str | None = None
    agent: AgentCandidate | None = None
    flow: FlowCandidate | None = None
    versions: Overrides = field(default_factory=Overrides)
    dry_run: bool = False
    correlation_id: str | None = None
    baseline: AskedBaseline = RECORDED
    reads: Reads = "recorded"
    repetitions: int = 1
    k: int = 10
    class_weights: ClassWeights = "as-recorded"
    override_settings: tuple[str, ...] = ()
    override_prompts: tuple[str, ...] = ()
    sample: Sample | None = None
    reuse: bool = False
    """Reuse the answers an earlier run of the same agent content gave (docs/choices.md)."""

    @property
    def restricted_only(self) -> bool:
        """Whether only verdicts given while their class was restricted count."""
        return self.class_weights == "restricted-only"


def asked_settings(request: StartRequest) -> RunSettings:
    """The settings a start request asks for (its sample and swaps are added once checked)."""
    return RunSettings(
        request.reads,
        request.repetitions,
        request.k,
        request.class_weights,
        baseline=request.baseline,
        reuse=request.reuse,
    )
