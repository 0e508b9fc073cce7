"""The bodies that publish an eval suite's version and build one from judgments."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import ConfigDict, Field
from pydantic.json_schema import WithJsonSchema

from ..domain.ids import UUID_PATTERN
from ..domain.semver import RELEASE_PATTERN
from .runs import ScopeSegment
from .wire import WHOLE, JsonObject, Omittable, WireModel, exactly_one, given

EvalKind = Literal[
    "accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "judged"
]


PUBLISHED_KINDS = [kind for kind in get_args(EvalKind) if kind != "judged"]
"""The kinds a version is published as: a judged suite's are built from judgments."""


class PublishEvalSuiteBody(WireModel):
    """A suite version to publish; `spec` is the dispatcher's business."""

    id: str = Field(min_length=1)
    project_id: str = Field(
        min_length=1, json_schema_extra={"format": "uuid", "pattern": UUID_PATTERN}
    )
    tenant_id: Omittable[str] = None
    version: str = Field(json_schema_extra={"pattern": RELEASE_PATTERN})
    kind: Annotated[EvalKind, WithJsonSchema({"enum": PUBLISHED_KINDS})]
    description: Omittable[str] = None
    spec: JsonObject


DATE_TIME = Field(json_schema_extra={"format": "date-time"})


class BuildJudgedSuiteBody(WireModel):
    """Which judged runs of one agent (or flow) in a project become the version's cases."""

    model_config = ConfigDict(
        json_schema_extra={
            **exactly_one("agentId", "flowId"),
            "not": {"allOf": [given("agentVersion"), {"not": given("agentId")}]},
        }
    )

    version: str = Field(json_schema_extra={"pattern": RELEASE_PATTERN})
    project_id: str = Field(min_length=1)
    agent_id: Omittable[str] = Field(default=None, min_length=1)
    agent_version: Omittable[str] = Field(default=None, min_length=1)
    """Only runs of this version of the agent (so it needs `agentId`)."""
    flow_id: Omittable[str] = Field(default=None, min_length=1)
    since: Omittable[Annotated[str, DATE_TIME]] = None
    until: Omittable[Annotated[str, DATE_TIME]] = None
    judge_class_ids: Omittable[list[str]] = None
    min_judgments: Omittable[Annotated[int, Field(ge=1), WHOLE]] = None
    segments: Omittable[list[ScopeSegment]] = None
    description: Omittable[str] = None
