"""How to try a version: the bodies that start an eval run (on a suite, on an agent's test
set) and rescore one, and the services' request a start body makes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from ..domain.semver import RELEASE_PATTERN
from ..services import eval_runs, flow_runs
from .baselines import BaselineField, asked
from .wire import WHOLE, Omittable, OpenObject, WireModel, exactly_one, given


class AgentRef(WireModel):
    """The agent version to try."""

    agent_id: str
    version: Omittable[str] = Field(default=None, pattern=RELEASE_PATTERN)


class FlowRef(WireModel):
    """The flow version to try."""

    flow_id: str
    version: Omittable[str] = Field(default=None, pattern=RELEASE_PATTERN)


class FlowVersionOverrides(WireModel):
    """Tools and agents the flow runs at other versions: id → exact version."""

    tools: Omittable[dict[str, str]] = None
    agents: Omittable[dict[str, str]] = None


class EvalSample(WireModel):
    """Only one part of the cases: the hold-out share or the rest, split by a seed."""

    part: Literal["search", "hold-out"]
    seed: str = Field(min_length=1, max_length=200)
    hold_out_share: float = Field(ge=0.1, le=0.9)


class PromptOverride(WireModel):
    """A prompt block's template to run instead of the pinned one."""

    template: str


NONE_TAKEN = Field(json_schema_extra={"maxProperties": 0})


class EvalOverrides(WireModel):
    """Block content an agent candidate's replays run instead of its pinned content: none
    applies under kindgi dev (each block named is refused, saying why), so the schema
    takes none."""

    settings: Omittable[Annotated[dict[str, OpenObject], NONE_TAKEN]] = Field(
        default=None, max_length=20
    )
    prompts: Omittable[Annotated[dict[str, PromptOverride], NONE_TAKEN]] = Field(
        default=None, max_length=1
    )


class StartEvalRunBody(WireModel):
    """How to try a version: the project, the candidate, and the comparison's settings.

    On an agent's test set the candidate is that agent (`agentRef` names its version)."""

    model_config = ConfigDict(json_schema_extra={"not": given("flowRef")})

    project_id: str | None = None
    agent_ref: Omittable[AgentRef] = None
    flow_ref: Omittable[FlowRef] = None
    versions: Omittable[FlowVersionOverrides] = None
    dry_run: Omittable[bool] = None
    correlation_id: Omittable[str] = None
    baseline: BaselineField = "recorded"
    reads: Literal["recorded", "live"] = "recorded"
    repetitions: Annotated[int, Field(ge=1, le=10), WHOLE] = 1
    k: Annotated[int, Field(ge=1, le=100), WHOLE] = 10
    class_weights: Literal["as-recorded", "restricted-only"] = "as-recorded"
    overrides: Omittable[EvalOverrides] = None
    sample: Omittable[EvalSample] = None
    reuse: bool = False
    """Reuse an earlier run's answers of the same agent content (an extension, docs/api.md)."""


class StartSuiteRunBody(StartEvalRunBody):
    """A run on an eval suite names its project, as the contract requires, and one
    candidate: an agent's version or a flow's."""

    model_config = ConfigDict(json_schema_extra=exactly_one("agentRef", "flowRef"))

    project_id: str = Field(min_length=1)


class RescoreBody(WireModel):
    """`rescore`'s optional body. The contract's schema has `projectId` for a runtime that
    doesn't record an eval run's project; this one records it, so the field is taken (a
    client may send it) and needs no reading."""

    project_id: Omittable[str] = None


def start_request(body: StartEvalRunBody) -> eval_runs.StartRequest:
    """The validated start body as the services' request record."""
    agent, flow, sample = body.agent_ref, body.flow_ref, body.sample
    swaps, overrides = body.versions, body.overrides
    return eval_runs.StartRequest(
        project_id=body.project_id,
        agent=None if agent is None else eval_runs.AgentCandidate(agent.agent_id, agent.version),
        flow=None if flow is None else eval_runs.FlowCandidate(flow.flow_id, flow.version),
        versions=flow_runs.Overrides(
            tools=dict(swaps.tools or {}) if swaps else {},
            agents=dict(swaps.agents or {}) if swaps else {},
        ),
        dry_run=bool(body.dry_run),
        correlation_id=body.correlation_id,
        baseline=asked(body.baseline, body.project_id),
        reads=body.reads,
        repetitions=body.repetitions,
        k=body.k,
        class_weights=body.class_weights,
        override_settings=tuple(overrides.settings or {}) if overrides else (),
        override_prompts=tuple(overrides.prompts or {}) if overrides else (),
        sample=None
        if sample is None
        else eval_runs.Sample(sample.part, sample.seed, sample.hold_out_share),
        reuse=body.reuse,
    )
