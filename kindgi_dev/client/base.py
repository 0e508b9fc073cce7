"""The 0.4 operations, and the request path the resources share with the official client."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from kindgi.client._base import Operation, SyncClientBase
from pydantic import BaseModel
from pydantic.alias_generators import to_camel

M = TypeVar("M", bound=BaseModel)


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


def camel_fields(**given: object) -> dict[str, object]:
    """A body of the fields given (None left out), snake_case names sent as camelCase."""
    return {to_camel(name): value for name, value in given.items() if value is not None}


class Resource:
    """Calls the API through the official client's request path (auth, retries, errors)."""

    def __init__(self, client: SyncClientBase) -> None:
        self._client = client

    def _call(
        self,
        operation_id: str,
        response: type[M],
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, object] | None = None,
        body: Mapping[str, object] | None = None,
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
