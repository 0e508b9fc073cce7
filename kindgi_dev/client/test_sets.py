"""`kindgi.agents.test_set` and `kindgi.test_sets`: an agent's test set and a version's cases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from kindgi.client._base import SyncClientBase
from kindgi.client._resources import AgentsResource as OfficialAgentsResource

from ..domain.json import JSON
from .base import Resource, camel_fields
from .models import AgentTestSet, TestCase, TestCasePage, VersionCasePage


class TestSetResource(Resource):
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
        items: Sequence[Mapping[str, JSON]] | None = None,
        decisions: Mapping[str, JSON] | None = None,
        answer: Mapping[str, JSON] | None = None,
        timeout: float | None = None,
    ) -> TestCase:
        """Add a case by hand on one of the agent's finished runs: what it should have done."""
        body = camel_fields(run_id=run_id, items=items, decisions=decisions, answer=answer)
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


class TestSetsResource(Resource):
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
