"""`GET /v1/runs/failures`: a project's failed runs in a window, grouped by cause and version."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..domain.failures import FailureGroups
from ..services import runs
from .endpoint import Call, Endpoint, NoBody
from .wire import WireModel, WireTime

GROUP_BY = "^(code|version)(,(code|version))*$"
"""`groupBy`: `code`, `version`, or both, comma-separated."""


class FailureQuery(WireModel):
    """The window (`from`, `to`) in a project, optionally one agent's or flow's runs."""

    project_id: str = Field(min_length=1)
    from_: WireTime = Field(alias="from")
    to: WireTime
    agent_id: str | None = None
    flow_id: str | None = None
    group_by: str | None = Field(default=None, pattern=GROUP_BY)
    limit: int | None = None


class FailureSubjectAnswer(WireModel):
    """Whose runs a group counts."""

    kind: Literal["agent", "flow"]
    id: str


class FailureGroupAnswer(WireModel):
    """One group: the same cause, subject and version."""

    code: str | None = None
    subject: FailureSubjectAnswer
    version: str | None = None
    count: int
    first_seen: str
    last_seen: str
    example_run_id: str


class RunFailureGroups(WireModel):
    """The window's failures, people's decisions, and runs failed with no recorded cause."""

    from_: str = Field(alias="from")
    to: str
    groups: list[FailureGroupAnswer]
    outcomes: list[FailureGroupAnswer]
    unrecorded: list[FailureGroupAnswer]
    total: int


async def failures(call: Call[NoBody, FailureQuery]) -> FailureGroups:
    q = call.query
    return runs.failures(
        call.ctx,
        q.project_id,
        q.from_,
        q.to,
        agent_id=q.agent_id,
        flow_id=q.flow_id,
        group_by=q.group_by,
        limit=q.limit,
    )


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/runs/failures",
        "runs.failures",
        failures,
        "A project's failed runs in a window, grouped by cause, subject and version.",
        query=FailureQuery,
        response=RunFailureGroups,
        errors=(400, 401, 404),
    ),
]
