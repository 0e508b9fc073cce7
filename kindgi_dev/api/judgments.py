"""`/v1/judgments`: create, list, get and unregister judgments (0.1's view of verdicts)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from ..domain.bounds import MAX_RANK
from ..domain.paging import Page
from ..domain.pointers import POINTER_PATTERN
from ..services import judgments
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .limits import MAX_KEY
from .routing import SHORT_WRITE_BYTES
from .wire import WHOLE, Omittable, OpenJson, OpenModel, OpenObject, WireModel, WirePage


class JudgedItemAnswer(WireModel):
    """The judged item: its stable key, where it is in the output, its rank."""

    model_config = ConfigDict(title="JudgedItem")

    key: str = Field(min_length=1, max_length=MAX_KEY)
    pointer: Omittable[Annotated[str, Field(json_schema_extra={"pattern": POINTER_PATTERN})]] = (
        Field(default=None, max_length=MAX_KEY)
    )
    rank: Omittable[Annotated[int, Field(ge=0, le=MAX_RANK), WHOLE]] = None


class CreateJudgmentBody(WireModel):
    """The body of `judgments.create`."""

    run_id: str = Field(min_length=1)
    item: JudgedItemAnswer
    verdict: Literal["yes", "no"]
    reason: Omittable[str] = Field(default=None, max_length=4000)
    judge_class_id: Omittable[str] = Field(default=None, min_length=1)
    participant_id: Omittable[str] = Field(default=None, min_length=1)


class JudgedSubject(WireModel):
    """What a judged run ran."""

    kind: Literal["agent", "flow"]
    id: str
    version: str


class JudgmentAssertedBy(WireModel):
    """Who asserted a judgment: the caller's credentials."""

    kind: Literal["user", "service"]
    id: str


class JudgmentAnswer(WireModel):
    """A judgment as the contract shapes it."""

    model_config = ConfigDict(title="Judgment")

    id: str
    tenant_id: str
    project_id: str
    run_id: str
    subject: JudgedSubject
    item: JudgedItemAnswer
    verdict: Literal["yes", "no"]
    reason: str | None = None
    judge_class_id: str | None = None
    restricted: Literal[True] | None = None
    asserted_by: JudgmentAssertedBy
    participant_id: str | None = None
    created_at: str
    unregistered_at: str | None = None
    superseded_by: str | None = None


class JudgedRunCopy(OpenModel):
    """The copy of a judged run taken at its first judgment."""

    run_id: str
    subject: JudgedSubject
    input: OpenJson = None
    context: OpenObject | None = None
    output: OpenJson = None
    segments: list[dict[str, str]] | None = None
    captured_at: str


class JudgmentWithCopiesAnswer(JudgmentAnswer):
    """A judgment with the run's copy and the judged item's value."""

    model_config = ConfigDict(title="JudgmentWithCopies")

    run: JudgedRunCopy
    item_value: OpenJson = None


class JudgmentCollectionPage(WirePage[JudgmentAnswer]):
    """A page of judgments."""


class JudgmentQuery(WireModel):
    """Filters and paging of `judgments.list`."""

    limit: int | None = None
    cursor: str | None = None
    run_id: str | None = Field(default=None, min_length=1)
    agent_id: str | None = Field(default=None, min_length=1)
    agent_version: str | None = Field(default=None, min_length=1)
    flow_id: str | None = Field(default=None, min_length=1)
    verdict: Literal["yes", "no"] | None = None
    judge_class_id: str | None = Field(default=None, min_length=1)
    participant_id: str | None = Field(default=None, min_length=1)
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = Field(default=None, min_length=1)


class UnregisterJudgmentResult(WireModel):
    """What unregistering a judgment answers."""

    judgment_id: str
    unregistered: Literal[True]


def create(call: Call[CreateJudgmentBody, NoQuery]) -> judgments.Judgment:
    body = call.body
    return judgments.create(
        call.ctx,
        body.run_id,
        key=body.item.key,
        pointer=body.item.pointer,
        rank=body.item.rank,
        verdict=body.verdict,
        reason=body.reason,
        judge_class_id=body.judge_class_id,
        participant_id=body.participant_id,
    )


async def list_judgments(call: Call[NoBody, JudgmentQuery]) -> Page[judgments.Judgment]:
    q = call.query
    filters = {
        "run_id": q.run_id,
        "agent_id": q.agent_id,
        "agent_version": q.agent_version,
        "flow_id": q.flow_id,
        "verdict": q.verdict,
        "judge_class_id": q.judge_class_id,
        "participant_id": q.participant_id,
    }
    return judgments.list_page(
        call.ctx,
        limit=q.limit,
        cursor=q.cursor,
        filters=filters,
        scope_kind=q.scope_kind,
        scope_id=q.scope_id,
    )


async def get(call: Call[NoBody, NoQuery]) -> judgments.JudgmentWithCopies:
    return judgments.get(call.ctx, call.path["judgmentId"])


def unregister(call: Call[NoBody, NoQuery]) -> judgments.UnregisteredJudgment:
    return judgments.unregister(call.ctx, call.path["judgmentId"])


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/judgments",
        "judgments.create",
        create,
        "Judge an item of a finished run's output.",
        body=CreateJudgmentBody,
        response=JudgmentAnswer,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "GET",
        "/v1/judgments",
        "judgments.list",
        list_judgments,
        "List live judgments, newest first.",
        query=JudgmentQuery,
        response=JudgmentCollectionPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/judgments/{judgmentId}",
        "judgments.get",
        get,
        "One judgment, live or not, with the run's copy.",
        response=JudgmentWithCopiesAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/judgments/{judgmentId}/unregister",
        "judgments.unregister",
        unregister,
        "Remove a judgment.",
        response=UnregisterJudgmentResult,
        errors=(400, 401, 403, 404, 409),
        inline_below=SHORT_WRITE_BYTES,
    ),
]
