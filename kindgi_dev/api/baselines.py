"""An eval run's baseline on the wire: what a start body names (the official client's
`EvalBaseline` union), and what a run's settings, summary and cases say of it.

The body's `baseline` is read here, one shape at a time, so a refusal names the field
(`baseline/version`) and not a member of a union.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator
from pydantic.json_schema import WithJsonSchema

from ..domain.baselines import RECORDED, AskedBaseline, BaselineScope, LiveAsked, VersionAsked
from ..domain.errors import ValidationFailed
from ..domain.json import JSON
from ..domain.segments import Segment as SegmentRecord
from .wire import JsonAny, WireModel, parse

SEMVER = r"^\d+\.\d+\.\d+$"
SEGMENT_KEY = r"^[a-z][a-z0-9_-]{0,63}$"
SHAPES = "must be recorded, {agentId, version} or {live: {projectId?, segments?}}"

_SEGMENT_SCHEMA = {
    "type": "object",
    "properties": {
        "key": {"type": "string", "pattern": SEGMENT_KEY},
        "value": {"type": "string", "minLength": 1, "maxLength": 256},
    },
    "required": ["key", "value"],
    "additionalProperties": False,
}
BASELINE_SCHEMA = {
    "description": "What the candidate is compared with: the recorded runs, another version "
    "replayed under the same rules (`flowId` for a flow's), or the version live in a scope.",
    "anyOf": [
        {"type": "string", "enum": [RECORDED]},
        {
            "type": "object",
            "properties": {
                "agentId": {"type": "string", "minLength": 1},
                "flowId": {"type": "string", "minLength": 1},
                "version": {"type": "string", "pattern": SEMVER},
            },
            "required": ["version"],
            "oneOf": [{"required": ["agentId"]}, {"required": ["flowId"]}],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "live": {
                    "type": "object",
                    "properties": {
                        "projectId": {"type": ["string", "null"], "minLength": 1},
                        "segments": {"type": "array", "maxItems": 8, "items": _SEGMENT_SCHEMA},
                    },
                    "additionalProperties": False,
                }
            },
            "required": ["live"],
            "additionalProperties": False,
        },
    ],
}
BaselineField = Annotated[JsonAny, WithJsonSchema(BASELINE_SCHEMA)]
"""A start body's `baseline`, read by `asked`."""


class SegmentBody(WireModel):
    """One level of a segment path."""

    key: str = Field(pattern=SEGMENT_KEY)
    value: str = Field(min_length=1, max_length=256)

    def record(self) -> SegmentRecord:
        """The level as the services take it."""
        return SegmentRecord(self.key, self.value)


class VersionBaseline(WireModel):
    """Another version: `{agentId, version}`, or a flow's `{flowId, version}`."""

    agent_id: str | None = Field(default=None, min_length=1)
    flow_id: str | None = Field(default=None, min_length=1)
    version: str = Field(pattern=SEMVER)

    @model_validator(mode="after")
    def _one_id(self) -> VersionBaseline:
        if (self.agent_id is None) == (self.flow_id is None):
            raise ValueError("give one of agentId or flowId")
        return self


class LiveScopeBody(WireModel):
    """Where the live version is looked up; `segments` is a path in `projectId` (left out:
    the eval run's own project, since the contract lets segments come without one)."""

    project_id: str | None = Field(default=None, min_length=1)
    segments: list[SegmentBody] | None = Field(default=None, max_length=8)


class LiveBaseline(WireModel):
    """The version live in a scope."""

    live: LiveScopeBody


def asked(value: JSON, project_id: str | None = None) -> AskedBaseline:
    """A start body's `baseline` as the services take it (live segments given without a
    project are a path in the run's `project_id`); 400 naming the field otherwise."""
    if value == RECORDED:  # null too is refused: left out, the baseline is the recorded runs
        return RECORDED
    if isinstance(value, dict) and "live" in value:
        live = parse(LiveBaseline, value, where="baseline", strict=True).live
        segments = None if not live.segments else tuple(s.record() for s in live.segments)
        where = live.project_id or (project_id if segments else None)
        if segments and where is None:
            raise ValidationFailed(
                "baseline/live/projectId", "segments are a path in a project: name the project"
            )
        return LiveAsked(BaselineScope(where, segments))
    if isinstance(value, dict):
        named = parse(VersionBaseline, value, where="baseline", strict=True)
        return VersionAsked(named.version, named.agent_id, named.flow_id)
    raise ValidationFailed("baseline", SHAPES)


class LiveScopeAnswer(WireModel):
    """The scope a live baseline was looked up in."""

    project_id: str | None = None
    segments: list[SegmentBody] | None = None


class BaselineVersionAnswer(WireModel):
    """A version the recorded runs were made on, with its cases."""

    agent_id: str | None = None
    flow_id: str | None = None
    version: str
    cases: int


class ComparisonBaseline(WireModel):
    """What the candidate was compared with: the recorded runs, by version (`recorded`),
    or another version (`version`: the client's `Baseline1`, whose `agentId` a flow's
    baseline fills with the flow's id, which that model requires; `liveSource` says where
    a live one came from)."""

    kind: str
    versions: list[BaselineVersionAnswer] | None = None
    agent_id: str | None = None
    flow_id: str | None = None
    version: str | None = None
    via: str | None = None
    live_scope: LiveScopeAnswer | None = None
    live_source: str | None = None


class VersionBaselineAsked(WireModel):
    """`{agentId, version}` (or `{flowId, version}`), as a run was started with it."""

    agent_id: str | None = None
    flow_id: str | None = None
    version: str


class LiveBaselineAsked(WireModel):
    """`{live: {…}}`, as a run was started with it."""

    live: LiveScopeAnswer


AskedAnswer = str | VersionBaselineAsked | LiveBaselineAsked
"""A run's `comparison.baseline`: as it was asked for."""


class ReplayCountAnswer(WireModel):
    """The replays each side of a run would make (a dry run's extension, docs/api.md)."""

    candidate: int
    baseline: int
