"""The kept, dropped and new items of a case, as the spec's example shows."""

from __future__ import annotations

from typing import Any

from kindgi_dev.api.eval_results import ChangesAnswer
from kindgi_dev.api.routing import shape
from kindgi_dev.domain.changes import changes as changes_of
from kindgi_dev.domain.items import Item, items_of
from kindgi_dev.domain.metrics import Verdict


def turn(ids: list[str], answer: str) -> dict[str, Any]:
    """An article picker turn answering with these articles and this text."""
    return {
        "output": {"articles": [{"id": i} for i in ids]},
        "appended": [
            {"role": "user", "content": "I forgot my password and can't sign in."},
            {"role": "agent", "content": None, "toolCalls": [{"toolId": "acme-ops.search"}]},
            {"role": "tool", "content": {}},
            {"role": "agent", "content": answer},
        ],
    }


def verdict(key: str, rank: int | None, yes: bool, value: Any = None) -> Verdict:
    """A weight-1 verdict without a class."""
    return Verdict(key, None, rank, yes, 1.0, False, value)


def changes(*given: Any) -> dict[str, Any]:
    """A case's changes as an eval run's answer shows them."""
    found: dict[str, Any] = shape(ChangesAnswer, changes_of(*given))
    return found


def test_spec_example() -> None:
    before = items_of(turn(["kb-101", "kb-102", "kb-103"], "Here are three articles."))
    after = items_of(turn(["kb-101"], "This article resets your password."))
    verdicts = [
        verdict("kb-101", 0, True),
        verdict("kb-102", 1, False),
        verdict("kb-103", 2, False),
    ]
    assert changes(before, verdicts, after) == {
        "kept": [{"key": "kb-101", "rankBefore": 0, "rank": 0}],
        "dropped": [{"key": "kb-102", "rankBefore": 1}, {"key": "kb-103", "rankBefore": 2}],
        "new": [{"key": "answer", "pointer": "/appended/3/content"}],
    }


def test_moved_identified_item_is_kept_at_its_new_rank() -> None:
    before = items_of({"output": {"a": [{"id": "x"}, {"id": "y"}]}})
    after = items_of({"output": {"a": [{"id": "z"}, {"id": "y"}, {"id": "x"}]}})
    result = changes(before, [verdict("x", 0, True)], after)
    assert result["kept"] == [{"key": "x", "rankBefore": 0, "rank": 2}]
    assert result["dropped"] == []
    assert result["new"] == [
        {"key": "z", "pointer": "/output/a/0", "rank": 0},
        {"key": "y", "pointer": "/output/a/1", "rank": 1},
    ]


def test_unchanged_answer_text_is_kept_without_ranks() -> None:
    before = items_of(turn([], "Same words."))
    after = items_of(turn([], "Same words."))
    result = changes(before, [verdict("answer", None, True, value="Same words.")], after)
    assert result == {"kept": [{"key": "answer"}], "dropped": [], "new": []}


def test_changed_id_less_element_is_dropped_and_new() -> None:
    before = [Item("/output/a/0", "/output/a/0", 0, {"t": "old"}, False)]
    after = [Item("/output/a/0", "/output/a/0", 0, {"t": "new"}, False)]
    result = changes(before, [verdict("/output/a/0", 0, False, value={"t": "old"})], after)
    assert result == {
        "kept": [],
        "dropped": [{"key": "/output/a/0", "rankBefore": 0}],
        "new": [{"key": "/output/a/0", "pointer": "/output/a/0", "rank": 0}],
    }
