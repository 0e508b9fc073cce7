"""`/v1/corrections` (0.4) and `/v1/erasures`: correct runs item by item, and erase words."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Literal, Protocol, get_args

from pydantic import ConfigDict, Field, field_validator
from pydantic.config import JsonDict
from pydantic.json_schema import WithJsonSchema

from ..domain.bounds import MAX_RANK
from ..domain.expectations import Answer, Decisions, ExpectedCall, GivenItem
from ..domain.paging import Page
from ..domain.pointers import POINTER_PATTERN
from ..services import corrections, erasures
from ..services.context import Context
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .limits import MAX_ITEMS, MAX_KEY
from .routing import SHORT_WRITE_BYTES
from .wire import WHOLE, JsonObject, WireModel, WirePage, given

Verdict = Literal["right", "wrong"]
Status = Literal["open", "fixed", "with-owner", "wont-fix", "removed"]


class CorrectionItemBody(WireModel):
    """One item's verdict: its stable key, where it is, its rank, right or wrong, and why."""

    key: str = Field(min_length=1, max_length=MAX_KEY)
    pointer: str = Field(max_length=MAX_KEY, json_schema_extra={"pattern": POINTER_PATTERN})
    rank: Annotated[int, Field(ge=0, le=MAX_RANK), WHOLE] | None = None
    verdict: Verdict
    reason: str | None = Field(default=None, max_length=4000)

    def record(self) -> GivenItem:
        """The item as the service takes it."""
        return GivenItem(self.key, self.pointer, self.verdict, self.rank, self.reason)


class ShouldCall(WireModel):
    """A tool the run should have called, with the arguments it should have had."""

    tool_id: str = Field(min_length=1, max_length=MAX_KEY)
    args: JsonObject | None = None

    def record(self) -> ExpectedCall:
        """The call as the service takes it."""
        return ExpectedCall(self.tool_id, self.args)


class _CallBody(Protocol):
    def record(self) -> ExpectedCall: ...


def decisions_of(
    verdict: Verdict, calls: Sequence[_CallBody] | None, must_not: Sequence[str] | None
) -> Decisions:
    """A decisions body (a correction's or a hand case's) as the service takes it."""
    return Decisions(
        verdict,
        None if calls is None else tuple(call.record() for call in calls),
        None if must_not is None else tuple(must_not),
    )


def _right_or_wrong(parts: tuple[str, str], wrong_part: Callable[[str], JsonDict]) -> JsonDict:
    """The schema rule of a decisions or answer body: `right` with none of its two parts,
    `wrong` with one or both (as `domain.corrections` checks it)."""
    none: JsonDict = {"enum": [None, "", []]}
    return {"anyOf": [
        {"properties": {"verdict": {"const": "right"}, **{part: none for part in parts}}},
        {"properties": {"verdict": {"const": "wrong"}},
         "anyOf": [{"required": [part], "properties": {part: wrong_part(part)}}
                   for part in parts]},
    ]}  # fmt: skip


DECISIONS_RULE = _right_or_wrong(
    ("shouldCall", "mustNotCall"), lambda _: {"type": "array", "minItems": 1}
)
"""`right` calls nothing more; `wrong` says what it should or shouldn't have called."""
ANSWER_RULE = _right_or_wrong(("shouldSay", "why"), lambda _: {"type": "string", "minLength": 1})
"""`right` says nothing more; `wrong` says what it should have said, or why not."""


class DecisionsCorrection(WireModel):
    """What the run should have done: right, or wrong with the calls it should (not) make."""

    model_config = ConfigDict(json_schema_extra=DECISIONS_RULE)

    verdict: Verdict
    should_call: list[ShouldCall] | None = Field(default=None, max_length=MAX_ITEMS)
    must_not_call: list[Annotated[str, Field(min_length=1, max_length=MAX_KEY)]] | None = Field(
        default=None, max_length=MAX_ITEMS
    )

    def record(self) -> Decisions:
        """The decisions as the service takes them."""
        return decisions_of(self.verdict, self.should_call, self.must_not_call)


class AnswerCorrection(WireModel):
    """What the run's answer should have said: right, or wrong with `shouldSay`/`why`."""

    model_config = ConfigDict(json_schema_extra=ANSWER_RULE)

    verdict: Verdict
    should_say: str | None = Field(default=None, max_length=4000)
    why: str | None = Field(default=None, max_length=4000)

    def record(self) -> Answer:
        """The answer as the service takes it."""
        return Answer(self.verdict, self.should_say, self.why)


SOMETHING_EXPECTED: JsonDict = {"anyOf": [
    {"required": ["items"], "properties": {"items": {"minItems": 1}}},
    given("decisions"),
    given("answer"),
]}  # fmt: skip
"""A correction's (or a hand case's) schema rule: items, decisions or an answer."""


class CreateCorrectionBody(WireModel):
    """The body of `corrections.create`: the whole correction of one run."""

    model_config = ConfigDict(json_schema_extra=SOMETHING_EXPECTED)

    run_id: str = Field(min_length=1, max_length=MAX_KEY)
    items: list[CorrectionItemBody] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: DecisionsCorrection | None = None
    answer: AnswerCorrection | None = None
    judge_class_id: str | None = Field(default=None, min_length=1)
    participant_id: str | None = Field(default=None, min_length=1)


class UpdateCorrectionBody(WireModel):
    """The body of `corrections.update`: status, decisions or answer (null removes a part;
    a status can't be removed)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    status: Annotated[Status | None, WithJsonSchema({"enum": list(get_args(Status))})] = None
    decisions: DecisionsCorrection | None = None
    answer: AnswerCorrection | None = None


class CorrectedItem(WireModel):
    """An item of a correction, with the judgment that records it."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    verdict: Verdict
    reason: str | None = None
    judgment_id: str


class Principal(WireModel):
    """Who made a correction."""

    kind: Literal["user", "service"]
    id: str


class CorrectionSubject(WireModel):
    """What the corrected run ran."""

    kind: Literal["agent", "flow"]
    id: str
    version: str


class Correction(WireModel):
    """A correction: one corrector's verdicts on one run, and what it should have done or said."""

    id: str
    run_id: str
    project_id: str
    subject: CorrectionSubject
    items: list[CorrectedItem]
    decisions: DecisionsCorrection | None = None
    answer: AnswerCorrection | None = None
    judge_class_id: str | None = None
    restricted: Literal[True] | None = None
    participant_id: str | None = None
    corrected_by: Principal
    status: Status
    replaced_by: str | None = None
    erased: Literal[True] | None = None
    created_at: str
    updated_at: str


class CorrectionCollectionPage(WirePage[Correction]):
    """A page of corrections."""


class CorrectionQuery(WireModel):
    """Filters and paging of `corrections.list`."""

    limit: int | None = None
    cursor: str | None = None
    run_id: str | None = Field(default=None, min_length=1)
    agent_id: str | None = Field(default=None, min_length=1)
    project_id: str | None = Field(default=None, min_length=1)
    status: list[Status] = Field(default_factory=list)
    participant_id: str | None = Field(default=None, min_length=1)
    corrected_by: str | None = Field(default=None, min_length=1)
    include_replaced: bool = False

    @field_validator("status", mode="before")
    @classmethod
    def _split(cls, value: object) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [part for v in values for part in str(v).split(",") if part]


class ErasureBody(WireModel):
    """Whose words to erase: an app's end user, by the id it corrected for."""

    participant_id: str = Field(min_length=1)


class ErasureResult(WireModel):
    """What an erasure cleared."""

    participant_id: str
    erased_at: str
    corrections: int
    judgments: int


def create(call: Call[CreateCorrectionBody, NoQuery]) -> corrections.Correction:
    return create_correction(call.ctx, call.body)


def create_correction(ctx: Context, body: CreateCorrectionBody) -> corrections.Correction:
    """The correction a `corrections.create` body says, created (for the API and the
    console's Correct this run alike)."""
    return corrections.create(
        ctx,
        body.run_id,
        items=[item.record() for item in body.items],
        decisions=None if body.decisions is None else body.decisions.record(),
        answer=None if body.answer is None else body.answer.record(),
        judge_class_id=body.judge_class_id,
        participant_id=body.participant_id,
    )


def add_item(call: Call[CorrectionItemBody, NoQuery]) -> corrections.Correction:
    return corrections.add_item(call.ctx, call.path["correctionId"], call.body.record())


async def list_corrections(call: Call[NoBody, CorrectionQuery]) -> Page[corrections.Correction]:
    q = call.query
    filters = {
        "run_id": q.run_id,
        "agent_id": q.agent_id,
        "project_id": q.project_id,
        "participant_id": q.participant_id,
        "corrected_by": q.corrected_by,
    }
    return corrections.list_page(
        call.ctx,
        limit=q.limit,
        cursor=q.cursor,
        filters=filters,
        statuses=q.status,
        include_replaced=q.include_replaced,
    )


async def get(call: Call[NoBody, NoQuery]) -> corrections.Correction:
    return corrections.get(call.ctx, call.path["correctionId"])


def update(call: Call[UpdateCorrectionBody, NoQuery]) -> corrections.Correction:
    body, keep = call.body, corrections.KEEP
    given = body.model_fields_set
    decisions = None if body.decisions is None else body.decisions.record()
    answer = None if body.answer is None else body.answer.record()
    return corrections.update(
        call.ctx,
        call.path["correctionId"],
        status=body.status if "status" in given else keep,
        decisions=decisions if "decisions" in given else keep,
        answer=answer if "answer" in given else keep,
    )


def erase(call: Call[ErasureBody, NoQuery]) -> erasures.ParticipantErasure:
    return erasures.erase_participant(call.ctx, call.body.participant_id)


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/corrections",
        "corrections.create",
        create,
        "Correct a run: create, or replace, the caller's one correction of it.",
        body=CreateCorrectionBody,
        response=Correction,
        status=201,
        errors=(400, 401, 403, 404, 409, 410, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        "/v1/corrections/{correctionId}/items",
        "corrections.addItem",
        add_item,
        "Add or change one item of a correction.",
        body=CorrectionItemBody,
        response=Correction,
        errors=(400, 401, 403, 404, 409, 410, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "GET",
        "/v1/corrections",
        "corrections.list",
        list_corrections,
        "List corrections, newest first.",
        query=CorrectionQuery,
        response=CorrectionCollectionPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/corrections/{correctionId}",
        "corrections.get",
        get,
        "One correction, live or replaced.",
        response=Correction,
        errors=(401, 404),
    ),
    Endpoint(
        "PATCH",
        "/v1/corrections/{correctionId}",
        "corrections.update",
        update,
        "Change a correction's status, decisions or answer.",
        body=UpdateCorrectionBody,
        response=Correction,
        errors=(400, 401, 403, 404, 409, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        "/v1/erasures",
        "erasures.create",
        erase,
        "Erase one person's words from their corrections and judgments.",
        body=ErasureBody,
        response=ErasureResult,
        errors=(400, 401, 413),
    ),
]
