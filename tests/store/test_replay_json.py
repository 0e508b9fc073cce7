"""A replay's compact output and context read back as they were, key order and kinds
too, or are kept whole when a part would not (#29 point 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kindgi_dev.store.replay_json import (
    compact_context,
    compact_output,
    full_context,
    full_output,
)

PROVIDER = {"id": "function", "model": "candidate"}
ASKED = {"userMessage": "Where is my package?"}
HI = {"role": "user", "content": "hi"}


def _turn(**changes: Any) -> dict[str, Any]:
    """A replay's turn result as `turn_result` writes it, with some keys changed (None
    drops one)."""
    appended = [
        {"role": "user", "content": "Where is my package?"},
        {"role": "agent", "content": "Try kb-301."},
    ]
    result: dict[str, Any] = {
        "runId": "r-1", "conversationId": "c-1", "turnNumber": 1, "appended": appended,
        "response": appended[-1], "retrieved": [], "violations": [],
        "usage": {"steps": 1, "durationMs": 3}, "provider": dict(PROVIDER),
        "output": {"articles": [{"id": "kb-301"}]},
    }  # fmt: skip
    result.update(changes)
    return {k: v for k, v in result.items() if v is not None}


def _round_trip(output: dict[str, Any]) -> tuple[Any, Any]:
    kept = compact_output(output, "r-1", "c-1", PROVIDER, ASKED)
    return kept, full_output(json.loads(json.dumps(kept)), "r-1", "c-1", PROVIDER, ASKED)


def test_a_plain_turn_keeps_only_what_its_row_does_not() -> None:
    output = _turn()
    kept, full = _round_trip(output)
    assert kept == {"usage": output["usage"], "output": output["output"],
                    "replies": [output["appended"][1]]}  # fmt: skip
    assert json.dumps(full) == json.dumps(output)


@pytest.mark.parametrize(
    "changes",
    [
        {"response": None},  # no response
        {"response": {"role": "agent", "content": "other"}},
        {"violations": [{"guardrailId": "g"}], "evaluationErrors": [{"action": "halt"}]},
        {"provider": {"id": "function", "model": "candidate", "extra": 1}},
        {"provider": {"model": "candidate", "id": "function"}},  # another key order
        {"turnNumber": 2},
        {"appended": [{"role": "user", "content": "something else"}]},
        {"appended": []},
        {"usage": None, "output": None},
        {"retrieved": [{"id": "doc"}]},
    ],
)
def test_a_turn_unlike_the_plain_one_reads_back_the_same(changes: dict[str, Any]) -> None:
    output = _turn(**changes)
    _, full = _round_trip(output)
    assert json.dumps(full) == json.dumps(output)


def test_an_output_of_another_run_or_shape_is_kept_whole() -> None:
    other = _turn(runId="r-2")
    assert compact_output(other, "r-1", "c-1", PROVIDER, ASKED) is other
    reordered = {"conversationId": "c-1", **_turn()}
    assert compact_output(reordered, "r-1", "c-1", PROVIDER, ASKED) is reordered
    assert compact_output(_turn(conversationId="c-2"), "r-1", "c-1", PROVIDER, ASKED) == _turn(
        conversationId="c-2"
    )
    for value in (None, "text", [1]):
        assert compact_output(value, "r-1", "c-1", PROVIDER, ASKED) == value
        assert full_output(value, "r-1", "c-1", PROVIDER, ASKED) == value
    assert full_output(_turn(), "r-1", "c-1", PROVIDER, ASKED) == _turn()  # whole, as stored


@pytest.mark.parametrize(
    ("context", "kept"),
    [
        ({"history": [], "historyTruncated": False, "retrieved": []}, [[]]),
        ({"history": [HI], "historyTruncated": True, "retrieved": []}, [[HI], True]),
        ({"history": [], "historyTruncated": False, "retrieved": [{"id": "doc"}]}, None),
        ({"historyTruncated": False, "history": [], "retrieved": []}, None),
        ({"history": [], "historyTruncated": 0, "retrieved": []}, None),
        (None, None),
    ],
)
def test_a_context_of_no_retrievals_is_kept_as_its_history(context: Any, kept: Any) -> None:
    stored = compact_context(context)
    assert stored == (context if kept is None else kept)
    assert json.dumps(full_context(json.loads(json.dumps(stored)))) == json.dumps(context)
