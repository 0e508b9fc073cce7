"""Every JSON operation declares the response model its answers are rendered through (a 204
answers no body, so it has none)."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError
from response_schema import check, endpoint_of

from kindgi_dev.api.app import endpoints
from kindgi_dev.api.routing import Endpoint

EVENT_STREAMS = {"runs.stream", "evalRuns.events"}


@pytest.mark.parametrize("endpoint", endpoints(), ids=lambda e: e.operation_id)
def test_every_json_operation_declares_a_response_model(endpoint: Endpoint) -> None:
    no_body = endpoint.status == 204
    assert endpoint.response is not None or endpoint.operation_id in EVENT_STREAMS or no_body


def test_an_answer_unlike_its_model_fails_the_test_that_got_it() -> None:
    request = httpx.Request("GET", "http://testserver/v1/projects/default")
    assert endpoint_of("GET", "/v1/projects/default") is not None
    with pytest.raises(ValidationError):
        check(httpx.Response(200, json={"id": 1}, request=request))
