"""`/v1/guardrails`: the pack's guardrails, and what their checks came to on live turns."""

from __future__ import annotations

from pydantic import Field

from ..domain.guardrails import Guardrail as GuardrailRecord
from ..domain.paging import Page
from ..services import guardrails
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import OpenObject, WireModel, WirePage, WireTime


class GuardrailAnswer(WireModel):
    """A guardrail as the 0.1.10 client reads it (no `projectId`: served from the pack)."""

    id: str
    name: str | None = None
    description: str | None = None
    kind: str
    check: str
    config: OpenObject | None = None
    action: OpenObject
    severity: str | None = None
    scope: OpenObject | None = None


class GuardrailPage(WirePage[GuardrailAnswer]):
    """A page of guardrails, by id."""


class GuardrailQuery(WireModel):
    """Filters of `guardrails.list` (a scope changes nothing: the pack's are tenant-wide)."""

    limit: int | None = None
    cursor: str | None = None
    name: str | None = None
    scope_kind: str | None = None
    scope_id: str | None = None
    inherit: bool | None = None


class OutcomesQuery(WireModel):
    """`guardrails.outcomes`: a project and a window."""

    project_id: str = Field(min_length=1)
    from_: WireTime = Field(alias="from")
    to: WireTime
    recent: int = Field(default=10, ge=0, le=100)


class CountsAnswer(WireModel):
    """How many checks came to each outcome."""

    passed: int
    violated: int
    blocked: int
    errored: int


class VersionCountsAnswer(CountsAnswer):
    """The counts on one agent version's turns."""

    agent_id: str
    agent_version: str


class BlockedRunAnswer(WireModel):
    """A blocked turn: its run and when."""

    run_id: str
    at: str
    agent_id: str
    agent_version: str


class OutcomesAnswer(WireModel):
    """What a guardrail's checks came to over a window."""

    guardrail_id: str
    from_: str = Field(alias="from")
    to: str
    counts: CountsAnswer
    by_agent_version: list[VersionCountsAnswer]
    recent_blocked: list[BlockedRunAnswer]
    recorded_since: str | None = None


async def list_guardrails(call: Call[NoBody, GuardrailQuery]) -> Page[GuardrailRecord]:
    q = call.query
    return guardrails.list_page(call.ctx, name=q.name, limit=q.limit, cursor=q.cursor)


async def get(call: Call[NoBody, NoQuery]) -> GuardrailRecord:
    return guardrails.get(call.ctx, call.path["guardrailId"])


async def outcomes(call: Call[NoBody, OutcomesQuery]) -> guardrails.Outcomes:
    q = call.query
    return guardrails.outcomes(
        call.ctx, call.path["guardrailId"], q.project_id, q.from_, q.to, q.recent
    )


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/guardrails",
        "guardrails.list",
        list_guardrails,
        "The pack's guardrails, by id.",
        query=GuardrailQuery,
        response=GuardrailPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/guardrails/{guardrailId}",
        "guardrails.get",
        get,
        "One of the pack's guardrails.",
        response=GuardrailAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/guardrails/{guardrailId}/outcomes",
        "guardrails.outcomes",
        outcomes,
        "What a guardrail's checks came to on live turns in a project over a window.",
        query=OutcomesQuery,
        response=OutcomesAnswer,
        errors=(400, 401, 404),
    ),
]
