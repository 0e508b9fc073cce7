"""Every list answer is one page model: `WirePage[T]`, named per list by a subclass."""

from __future__ import annotations

from kindgi_dev.api.app import endpoints
from kindgi_dev.api.wire import WirePage


def test_every_answer_with_has_more_is_a_wire_page() -> None:
    paged = {
        e.response for e in endpoints() if e.response and "has_more" in e.response.model_fields
    }
    hand_written = sorted(m.__name__ for m in paged if not issubclass(m, WirePage))
    assert len(paged) >= 25
    assert hand_written == []


def test_a_page_answers_the_contract_fields_in_camel_case() -> None:
    class Numbers(WirePage[int]):
        """A page of numbers."""

    first = Numbers(data=[1, 2], has_more=True, next_cursor="c2")
    assert first.model_dump(by_alias=True) == {"data": [1, 2], "hasMore": True, "nextCursor": "c2"}
    schema = Numbers.model_json_schema(by_alias=True)
    assert (schema["title"], schema["description"]) == ("Numbers", "A page of numbers.")
    assert schema["required"] == ["data", "hasMore"]
    assert schema["additionalProperties"] is False
