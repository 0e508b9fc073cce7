"""`Kindgi`: the official client (`kindgi.client`, 0.1.10) with Kindgi 0.4's resources added.

The pinned client predates an agent's test set and the 0.4 corrections API, so the 0.4
guide's scripts would stop at `AttributeError`. This one is the official client, same
configuration lookup (`KINDGI_API_URL`, `KINDGI_API_TOKEN`, else the running kindgi dev's
`.kindgirc.json`), same errors and retries, plus:

    from kindgi_dev.client import Kindgi

    kindgi = Kindgi()
    test_set = kindgi.agents.test_set.get("acme-ops.article-picker", project_id=project_id)
    cases = kindgi.agents.test_set.list_cases("acme-ops.article-picker", project_id=project_id)
    kindgi.agents.test_set.add_case(agent_id, run_id=run_id, items=[...])
    kindgi.agents.test_set.retire_case(agent_id, case_id, reason="…")
    kindgi.test_sets.list_cases(test_set_id, version)
    kindgi.corrections.create(run_id=run_id, items=[...])  # add_item, update, list, get

Answers are typed models with snake_case fields (`test_set.cases.active`,
`test_set.frozen_version`), as the official client's are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from kindgi.client import Kindgi as OfficialKindgi
from kindgi.client._base import Operation, SyncClientBase
from kindgi.client._resources import AgentsResource as OfficialAgentsResource
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = [
    "AgentTestSet",
    "Correction",
    "CorrectionPage",
    "Kindgi",
    "TestCase",
    "TestCasePage",
]

Verdict = Literal["right", "wrong"]
M = TypeVar("M", bound=BaseModel)


class _Model(BaseModel):
    """An answer: camelCase on the wire, snake_case here; fields a newer runtime adds kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, alias_generator=to_camel)


class CaseCounts(_Model):
    """How many cases a test set has, and how many were retired."""

    active: int
    retired: int


class FrozenVersion(_Model):
    """A frozen version of a test set: `{test_set_id, version}`."""

    test_set_id: str
    version: str


class AgentTestSet(_Model):
    """An agent's test set in one project: case counts and its newest frozen version."""

    id: str
    agent_id: str
    project_id: str
    cases: CaseCounts
    frozen_version: FrozenVersion | None = None


class ExpectedItem(_Model):
    """An item a case expects, right or wrong."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    verdict: Verdict
    reason: str | None = None


class CaseExpect(_Model):
    """What a case expects: its items, decisions and answer, each when given."""

    items: list[ExpectedItem] | None = None
    decisions: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None


class Principal(_Model):
    """Who added, retired or corrected something."""

    kind: str
    id: str


class CaseRetirement(_Model):
    """Why, by whom and when a case was retired."""

    reason: str
    by: Principal
    at: str


class TestCase(_Model):
    """A case of an agent's test set: a correction's (its id) or one added by hand (`case-…`)."""

    id: str
    kind: str
    project_id: str
    run_id: str
    made_on: str
    expect: CaseExpect
    expert: bool | None = None
    added_by: Principal | None = None
    added_at: str | None = None
    updated_at: str | None = None
    retired: CaseRetirement | None = None


class TestCasePage(_Model):
    """A page of cases, newest first."""

    data: list[TestCase]
    has_more: bool
    next_cursor: str | None = None


class VersionCasePage(_Model):
    """A page of one test-set version's cases, as they were when it was frozen or built."""

    data: list[dict[str, Any]]
    has_more: bool
    next_cursor: str | None = None


class CorrectedItem(_Model):
    """One item of a correction, with the judgment that records it."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    verdict: Verdict
    reason: str | None = None
    judgment_id: str | None = None


class CorrectionSubject(_Model):
    """What the corrected run ran."""

    kind: str
    id: str
    version: str


class Correction(_Model):
    """One corrector's correction of one run: items, and what it should have done or said."""

    id: str
    run_id: str
    project_id: str
    subject: CorrectionSubject
    items: list[CorrectedItem]
    decisions: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    judge_class_id: str | None = None
    restricted: bool | None = None
    participant_id: str | None = None
    corrected_by: Principal
    status: str
    replaced_by: str | None = None
    erased: bool | None = None
    created_at: str
    updated_at: str


class CorrectionPage(_Model):
    """A page of corrections, newest first."""

    data: list[Correction]
    has_more: bool
    next_cursor: str | None = None


def _op(operation_id: str, method: str, path: str) -> Operation:
    """An operation of the 0.4 API, as the official client describes its own."""
    return Operation(operation_id, method, path, "json", method == "POST")


_TEST_SET = "/v1/agents/{agentId}/test-set"
_OPERATIONS = {
    op.id: op
    for op in (
        _op("agents.testSet.get", "GET", _TEST_SET),
        _op("agents.testSet.listCases", "GET", f"{_TEST_SET}/cases"),
        _op("agents.testSet.addCase", "POST", f"{_TEST_SET}/cases"),
        _op("agents.testSet.retireCase", "POST", f"{_TEST_SET}/cases/{{caseId}}/retire"),
        _op("testSets.listCases", "GET", "/v1/test-sets/{testSetId}/versions/{version}/cases"),
        _op("corrections.create", "POST", "/v1/corrections"),
        _op("corrections.addItem", "POST", "/v1/corrections/{correctionId}/items"),
        _op("corrections.list", "GET", "/v1/corrections"),
        _op("corrections.get", "GET", "/v1/corrections/{correctionId}"),
        _op("corrections.update", "PATCH", "/v1/corrections/{correctionId}"),
    )
}


def _fields(**given: Any) -> dict[str, Any]:
    """A body of the fields given (None left out), snake_case names sent as camelCase."""
    return {to_camel(name): value for name, value in given.items() if value is not None}


class _Resource:
    """Calls the API through the official client's request path (auth, retries, errors)."""

    def __init__(self, client: SyncClientBase) -> None:
        self._client = client

    def _call(
        self,
        operation_id: str,
        response: type[M],
        *,
        path: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> M:
        answer: M = self._client._request(
            _OPERATIONS[operation_id],
            path=path or {},
            query=query or {},
            headers={},
            body=body,
            response=response,
            timeout=timeout,
        )
        return answer


class TestSetResource(_Resource):
    """`kindgi.agents.test_set`: an agent's test set in a project (0.4)."""

    def get(
        self, agent_id: str, /, *, project_id: str | None = None, timeout: float | None = None
    ) -> AgentTestSet:
        """The set's case counts and newest frozen version (default project when not given)."""
        return self._call(
            "agents.testSet.get",
            AgentTestSet,
            path={"agentId": agent_id},
            query={"projectId": project_id},
            timeout=timeout,
        )

    def list_cases(
        self,
        agent_id: str,
        /,
        *,
        project_id: str | None = None,
        include: Literal["retired"] | None = None,
        kind: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
    ) -> TestCasePage:
        """A page of the set's cases, newest first; `include="retired"`, `kind="hand"`."""
        query = {
            "projectId": project_id,
            "include": include,
            "kind": kind,
            "limit": limit,
            "cursor": cursor,
        }
        return self._call(
            "agents.testSet.listCases",
            TestCasePage,
            path={"agentId": agent_id},
            query=query,
            timeout=timeout,
        )

    def add_case(
        self,
        agent_id: str,
        /,
        *,
        run_id: str,
        items: list[Mapping[str, Any]] | None = None,
        decisions: Mapping[str, Any] | None = None,
        answer: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> TestCase:
        """Add a case by hand on one of the agent's finished runs: what it should have done."""
        body = _fields(run_id=run_id, items=items, decisions=decisions, answer=answer)
        return self._call(
            "agents.testSet.addCase",
            TestCase,
            path={"agentId": agent_id},
            body=body,
            timeout=timeout,
        )

    def retire_case(
        self, agent_id: str, case_id: str, /, *, reason: str, timeout: float | None = None
    ) -> TestCase:
        """Retire a case that no longer applies, saying why (kept; no un-retire)."""
        return self._call(
            "agents.testSet.retireCase",
            TestCase,
            path={"agentId": agent_id, "caseId": case_id},
            body={"reason": reason},
            timeout=timeout,
        )


class AgentsResource(OfficialAgentsResource):
    """`kindgi.agents`: the official resource, plus `test_set`."""

    def __init__(self, client: SyncClientBase) -> None:
        super().__init__(client)
        self.test_set = TestSetResource(client)


class TestSetsResource(_Resource):
    """`kindgi.test_sets`: the test-set registry's cases by version."""

    def list_cases(
        self,
        test_set_id: str,
        version: str,
        /,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
    ) -> VersionCasePage:
        """A version's cases as they were when it was frozen (`1.0.0`, …) or built."""
        return self._call(
            "testSets.listCases",
            VersionCasePage,
            path={"testSetId": test_set_id, "version": version},
            query={"limit": limit, "cursor": cursor},
            timeout=timeout,
        )


class CorrectionsResource(_Resource):
    """`kindgi.corrections`: correct runs item by item (0.4)."""

    def create(
        self,
        *,
        run_id: str,
        items: list[Mapping[str, Any]] | None = None,
        decisions: Mapping[str, Any] | None = None,
        answer: Mapping[str, Any] | None = None,
        judge_class_id: str | None = None,
        participant_id: str | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Correct a run: create, or replace, your one correction of it."""
        body = _fields(
            run_id=run_id,
            items=items,
            decisions=decisions,
            answer=answer,
            judge_class_id=judge_class_id,
            participant_id=participant_id,
        )
        return self._call("corrections.create", Correction, body=body, timeout=timeout)

    def add_item(
        self,
        correction_id: str,
        /,
        *,
        key: str,
        pointer: str,
        verdict: Verdict,
        rank: int | None = None,
        reason: str | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Add or change one item of a correction."""
        body = _fields(key=key, pointer=pointer, rank=rank, verdict=verdict, reason=reason)
        return self._call(
            "corrections.addItem",
            Correction,
            path={"correctionId": correction_id},
            body=body,
            timeout=timeout,
        )

    def update(
        self,
        correction_id: str,
        /,
        *,
        status: str | None = None,
        decisions: Mapping[str, Any] | None = None,
        answer: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Change a correction's status (`open`, `fixed`, `with-owner`, `wont-fix`,
        `removed`), decisions or answer."""
        body = _fields(status=status, decisions=decisions, answer=answer)
        return self._call(
            "corrections.update",
            Correction,
            path={"correctionId": correction_id},
            body=body,
            timeout=timeout,
        )

    def list(
        self,
        *,
        run_id: str | None = None,
        agent_id: str | None = None,
        project_id: str | None = None,
        status: str | None = None,
        participant_id: str | None = None,
        corrected_by: str | None = None,
        include_replaced: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
    ) -> CorrectionPage:
        """Corrections, newest first, narrowed by run, agent, project, status or corrector."""
        query = _fields(
            run_id=run_id,
            agent_id=agent_id,
            project_id=project_id,
            status=status,
            participant_id=participant_id,
            corrected_by=corrected_by,
            include_replaced=include_replaced,
            limit=limit,
            cursor=cursor,
        )
        return self._call("corrections.list", CorrectionPage, query=query, timeout=timeout)

    def get(self, correction_id: str, /, *, timeout: float | None = None) -> Correction:
        """One correction, live or replaced."""
        return self._call(
            "corrections.get", Correction, path={"correctionId": correction_id}, timeout=timeout
        )


class Kindgi(OfficialKindgi):
    """The official `Kindgi` client with `agents.test_set`, `test_sets.list_cases` and
    `corrections` added; everything else is the official client's own."""

    agents: AgentsResource
    test_sets: TestSetsResource
    corrections: CorrectionsResource

    def __init__(self, base_url: str | None = None, **options: Any) -> None:
        super().__init__(base_url, **options)
        self.agents = AgentsResource(self)
        self.test_sets = TestSetsResource(self)
        self.corrections = CorrectionsResource(self)
