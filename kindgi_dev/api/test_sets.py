"""An agent's test set (`/v1/agents/{agentId}/test-set…`): its cases, hand cases, retiring
and freezing; the `/v1/test-sets` registry is `test_set_registry`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, field_validator

from ..domain import test_sets as rules
from ..domain.bounds import MAX_RANK
from ..domain.expectations import Answer, Decisions, ExpectedCall, GivenItem
from ..domain.paging import Page
from ..domain.pointers import POINTER_PATTERN
from ..domain.test_sets import TestCase as TestCaseRecord
from ..domain.text import NOT_BLANK_PATTERN
from ..services import test_set_versions, test_sets
from ..services.context import Context
from .corrections import ANSWER_RULE, DECISIONS_RULE, SOMETHING_EXPECTED, decisions_of
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .limits import MAX_ITEMS, MAX_KEY
from .routing import SHORT_WRITE_BYTES
from .wire import WHOLE, JsonObject, WireModel, WirePage

Verdict = Literal["right", "wrong"]
CaseKind = Literal["correction", "hand"]


class CaseItem(WireModel):
    """An item a case expects: its key, where it is, its rank, and right or wrong."""

    key: str = Field(min_length=1, max_length=MAX_KEY)
    pointer: str | None = Field(
        default=None, max_length=MAX_KEY, json_schema_extra={"pattern": POINTER_PATTERN}
    )
    rank: Annotated[int, Field(ge=0, le=MAX_RANK), WHOLE] | None = None
    verdict: Verdict
    reason: str | None = Field(default=None, max_length=4000)

    def record(self) -> GivenItem:
        """The item as the service takes it."""
        return GivenItem(self.key, self.pointer, self.verdict, self.rank, self.reason)


class CaseCall(WireModel):
    """A tool the run should have called, with the arguments it should have had."""

    tool_id: str = Field(min_length=1)
    args: JsonObject | None = None

    def record(self) -> ExpectedCall:
        """The call as the service takes it."""
        return ExpectedCall(self.tool_id, self.args)


class CaseDecisions(WireModel):
    """What the run should have done: right, or wrong with what it should (not) call."""

    model_config = ConfigDict(json_schema_extra=DECISIONS_RULE)

    verdict: Verdict
    should_call: list[CaseCall] | None = None
    must_not_call: list[Annotated[str, Field(min_length=1)]] | None = None

    def record(self) -> Decisions:
        """The decisions as the service takes them."""
        return decisions_of(self.verdict, self.should_call, self.must_not_call)


class CaseAnswer(WireModel):
    """What the answer should have said: right, or wrong with `shouldSay` and/or `why`."""

    model_config = ConfigDict(json_schema_extra=ANSWER_RULE)

    verdict: Verdict
    should_say: str | None = Field(default=None, max_length=4000)
    why: str | None = Field(default=None, max_length=4000)

    def record(self) -> Answer:
        """The answer as the service takes it."""
        return Answer(self.verdict, self.should_say, self.why)


class AddCaseBody(WireModel):
    """A hand case: a correction's body on one of the agent's finished runs."""

    model_config = ConfigDict(json_schema_extra=SOMETHING_EXPECTED)

    run_id: str = Field(min_length=1, max_length=MAX_KEY)
    items: list[CaseItem] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: CaseDecisions | None = None
    answer: CaseAnswer | None = None


class RetireCaseBody(WireModel):
    """Why the case no longer applies."""

    reason: str = Field(
        min_length=1, max_length=4000, json_schema_extra={"pattern": NOT_BLANK_PATTERN}
    )


class CasePrincipal(WireModel):
    """Who added or retired a case."""

    kind: str
    id: str


class CaseRetirementAnswer(WireModel):
    """When, by whom and why a case was retired."""

    reason: str
    by: CasePrincipal
    at: str


class CaseExpectAnswer(WireModel):
    """A part for each part the correction gave a verdict on."""

    items: list[CaseItem] | None = None
    decisions: CaseDecisions | None = None
    answer: CaseAnswer | None = None


class TestCaseAnswer(WireModel):
    """A case of an agent's test set (a correction's has the correction's id)."""

    model_config = ConfigDict(title="TestCase")

    id: str
    kind: CaseKind
    project_id: str
    run_id: str
    made_on: str
    expect: CaseExpectAnswer
    expert: bool
    added_by: CasePrincipal
    added_at: str
    updated_at: str
    retired: CaseRetirementAnswer | None = None
    judge_class_id: str | None = None
    """The corrector group (judge class) the correction was made under, when there was one."""


class AgentTestCasePage(WirePage[TestCaseAnswer]):
    """A page of cases, newest first."""


class CaseCountsAnswer(WireModel):
    """How many cases the set has, and how many were retired."""

    active: int
    retired: int


class FrozenVersionAnswer(WireModel):
    """A frozen version of a test set: its cases as they were when a test run started."""

    test_set_id: str
    version: str


class AgentTestSetAnswer(WireModel):
    """An agent's test set in one project, computed when read."""

    id: str
    agent_id: str
    project_id: str
    cases: CaseCountsAnswer
    frozen_version: FrozenVersionAnswer | None = None


class ProjectQuery(WireModel):
    """The project (default: the default project)."""

    project_id: str | None = Field(default=None, min_length=1)


def _both_kinds() -> list[CaseKind]:
    """The default of `kind`: cases of both kinds."""
    return ["correction", "hand"]


class CaseQuery(ProjectQuery):
    """Filters and paging of the cases list."""

    include: Literal["retired"] | None = None
    kind: list[CaseKind] = Field(default_factory=_both_kinds)
    limit: int | None = None
    cursor: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _split(cls, value: object) -> list[str]:
        values = value if isinstance(value, list) else [value]
        return [part for v in values for part in str(v).split(",") if part]


async def get_set(call: Call[NoBody, ProjectQuery]) -> test_sets.AgentTestSet:
    """The set's counts and newest frozen version."""
    return test_sets.get(call.ctx, call.path["agentId"], call.query.project_id)


async def list_cases(call: Call[NoBody, CaseQuery]) -> Page[TestCaseRecord]:
    """A page of the set's cases."""
    q = call.query
    page = test_sets.list_cases(
        call.ctx,
        call.path["agentId"],
        q.project_id,
        include_retired=q.include == "retired",
        kinds=tuple(q.kind),
        limit=q.limit,
        cursor=q.cursor,
    )
    return page


def add_case(call: Call[AddCaseBody, NoQuery]) -> rules.TestCase:
    """Add a hand case (201)."""
    return add_hand_case(call.ctx, call.path["agentId"], call.body)


def add_hand_case(ctx: Context, agent_id: str, body: AddCaseBody) -> rules.TestCase:
    """The hand case an `addCase` body says, added (for the API and the console alike)."""
    return test_sets.add_case(
        ctx,
        agent_id,
        body.run_id,
        items=[item.record() for item in body.items],
        decisions=None if body.decisions is None else body.decisions.record(),
        answer=None if body.answer is None else body.answer.record(),
    )


def retire_case(call: Call[RetireCaseBody, NoQuery]) -> rules.TestCase:
    """Retire a case with the body's reason."""
    path = call.path
    return test_sets.retire_case(call.ctx, path["agentId"], path["caseId"], call.body.reason)


def freeze(call: Call[NoBody, ProjectQuery]) -> test_sets.FrozenVersion:
    """Freeze the active cases as the next version (201), in a worker thread: thousands of
    cases take a second to copy."""
    return test_set_versions.freeze(call.ctx, call.path["agentId"], call.query.project_id)


_SET = "/v1/agents/{agentId}/test-set"
ENDPOINTS = [
    Endpoint(
        "GET",
        _SET,
        "agents.testSet.get",
        get_set,
        "An agent's test set in a project: case counts and its newest frozen version.",
        query=ProjectQuery,
        response=AgentTestSetAnswer,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        f"{_SET}/cases",
        "agents.testSet.listCases",
        list_cases,
        "The set's cases, newest first (`include=retired`, `kind=correction,hand`).",
        query=CaseQuery,
        response=AgentTestCasePage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "POST",
        f"{_SET}/cases",
        "agents.testSet.addCase",
        add_case,
        "Add a case by hand on one of the agent's finished runs.",
        body=AddCaseBody,
        response=TestCaseAnswer,
        status=201,
        errors=(400, 401, 404, 409, 410, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        f"{_SET}/cases/{{caseId}}/retire",
        "agents.testSet.retireCase",
        retire_case,
        "Retire a case with a reason (kept; no un-retire).",
        body=RetireCaseBody,
        response=TestCaseAnswer,
        errors=(400, 401, 404, 409),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        f"{_SET}/freeze",
        "agents.testSet.freeze",
        freeze,
        "Freeze the set's active cases as its next version.",
        query=ProjectQuery,
        response=FrozenVersionAnswer,
        status=201,
        errors=(400, 401, 404),
    ),
]
