"""An eval run's settings and candidate as typed records, written to and read from its row
in one place.

The row keeps them as JSON in the shape the run's answer shows (`comparison`, `agentRef`,
`flowRef`, `frozenVersion`), so runs stored before read as they did; only this module
knows those names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...domain.baselines import RECORDED, AskedBaseline, BaselineScope, LiveAsked, VersionAsked
from ...domain.results import Baseline
from ...domain.segments import Segment
from ..test_sets import FrozenVersion
from .request import AgentCandidate, ClassWeights, FlowCandidate, Reads, Sample, StartRequest


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

    @classmethod
    def of(cls, request: StartRequest) -> RunSettings:
        """The settings a start request asks for (its sample and swaps are added once
        checked)."""
        return cls(
            request.reads,
            request.repetitions,
            request.k,
            request.class_weights,
            baseline=request.baseline,
            reuse=request.reuse,
        )

    @classmethod
    def decode(cls, data: Mapping[str, Any]) -> RunSettings:
        """Settings as a run's row keeps them."""
        sample = data.get("sample")
        return cls(
            reads=data.get("reads", "recorded"),
            repetitions=data.get("repetitions", 1),
            k=data.get("k", 10),
            class_weights=data.get("classWeights", "as-recorded"),
            sample=None
            if not sample
            else Sample(sample["part"], sample["seed"], sample["holdOutShare"]),
            versions=data.get("versions") or None,
            rescore_of=data.get("rescoreOf"),
            baseline=_asked_of(data.get("baseline", RECORDED)),
            baseline_version=_version_of(data.get("baselineVersion")),
            resume_of=data.get("resumeOf"),
            reuse=bool(data.get("reuse")),
        )

    def encoded(self) -> dict[str, Any]:
        """Settings as a run's row keeps them: each optional part only when there is one."""
        sample = self.sample
        optional = {
            "versions": self.versions,
            "sample": None
            if sample is None
            else {"part": sample.part, "seed": sample.seed, "holdOutShare": sample.hold_out_share},
            "rescoreOf": self.rescore_of,
            "baselineVersion": _version_json(self.baseline_version),
            "resumeOf": self.resume_of,
            "reuse": self.reuse,
        }
        return {
            "baseline": _asked_json(self.baseline),
            "reads": self.reads,
            "repetitions": self.repetitions,
            "k": self.k,
            "classWeights": self.class_weights,
            **{key: value for key, value in optional.items() if value},
        }


def _asked_json(asked: AskedBaseline) -> Any:
    """The baseline asked for, as the start body spells it."""
    if isinstance(asked, VersionAsked):
        named = {"flowId": asked.flow_id} if asked.flow_id else {"agentId": asked.agent_id}
        return {**named, "version": asked.version}
    if isinstance(asked, LiveAsked):
        return {"live": _scope_json(asked.live)}
    return asked


def _asked_of(data: Any) -> AskedBaseline:
    """The baseline asked for, as a run's row keeps it."""
    if isinstance(data, dict) and isinstance(data.get("live"), dict):
        return LiveAsked(_scope_of(data["live"]))
    if isinstance(data, dict):
        return VersionAsked(data["version"], data.get("agentId"), data.get("flowId"))
    return RECORDED


def _scope_json(scope: BaselineScope) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if scope.project_id is not None:
        found["projectId"] = scope.project_id
    if scope.segments:
        found["segments"] = [{"key": s.key, "value": s.value} for s in scope.segments]
    return found


def _scope_of(data: Mapping[str, Any]) -> BaselineScope:
    segments = data.get("segments")
    return BaselineScope(
        data.get("projectId"),
        tuple(Segment(s["key"], s["value"]) for s in segments) if segments else None,
    )


def _version_json(found: Baseline | None) -> dict[str, Any] | None:
    """A version baseline as the summary names it (`Baseline1`'s names)."""
    if found is None:
        return None
    optional = {
        "agentId": found.agent_id,
        "flowId": found.flow_id,
        "version": found.version,
        "via": found.via,
        "liveScope": None if found.live_scope is None else _scope_json(found.live_scope),
        "liveSource": found.live_source,
    }
    return {"kind": found.kind, **{k: v for k, v in optional.items() if v is not None}}


def _version_of(data: Mapping[str, Any] | None) -> Baseline | None:
    if not data:
        return None
    scope = data.get("liveScope")
    return Baseline(
        data["kind"],
        agent_id=data.get("agentId"),
        flow_id=data.get("flowId"),
        version=data.get("version"),
        via=data.get("via"),
        live_scope=None if scope is None else _scope_of(scope),
        live_source=data.get("liveSource"),
    )


def settings_of(row: Mapping[str, Any]) -> RunSettings:
    """A stored eval run's settings."""
    return RunSettings.decode(row.get("comparison") or {})


def agent_ref(agent: AgentCandidate) -> dict[str, Any]:
    """An agent candidate as a run's row keeps it."""
    return {"agentId": agent.agent_id, "version": agent.version}


def flow_ref(flow: FlowCandidate) -> dict[str, Any]:
    """A flow candidate as a run's row keeps it."""
    return {"flowId": flow.flow_id, "version": flow.version}


def frozen_ref(frozen: FrozenVersion) -> dict[str, Any]:
    """The frozen test set version a run replays, as its row keeps it."""
    return {"testSetId": frozen.test_set_id, "version": frozen.version}


def agent_of(row: Mapping[str, Any]) -> AgentCandidate | None:
    """A stored eval run's agent candidate, if it tried an agent."""
    ref = row.get("agent_ref")
    return AgentCandidate(ref["agentId"], ref.get("version")) if ref else None


def flow_of(row: Mapping[str, Any]) -> FlowCandidate | None:
    """A stored eval run's flow candidate, if it tried a flow."""
    ref = row.get("flow_ref")
    return FlowCandidate(ref["flowId"], ref.get("version")) if ref else None


def frozen_of(row: Mapping[str, Any]) -> FrozenVersion | None:
    """The frozen test set version a stored eval run replays, if any."""
    ref = row.get("frozen_version")
    return FrozenVersion(ref["testSetId"], ref["version"]) if ref else None
