"""A replay's compact output and context read back as they were, key order and kinds
too, or are kept whole when a part would not (#29 point 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kindgi_dev.domain.stored_values import COPY_DEPTH
from kindgi_dev.store.jsoncol import dump, load
from kindgi_dev.store.replay_json import (
    RowParts,
    compact_context,
    compact_output,
    full_context,
    full_output,
    kept_as_is,
)

PROVIDER = {"id": "function", "model": "candidate"}
ASKED = {"userMessage": "Where is my package?"}
FOUND = {"articles": [{"id": "kb-301", "title": "Track your package"}]}
CALLS = [
    {"step": 0, "callId": "call-1", "toolId": "search", "toolVersion": "0.1.0",
     "arguments": {"query": "package"}, "result": FOUND, "error": None, "source": "recorded"},
    {"step": 0, "callId": "call-2", "toolId": "refund", "toolVersion": "0.1.0",
     "arguments": {"order": 7}, "result": None, "error": "replay: refused", "source": "refused"},
]  # fmt: skip
ROW = RowParts("r-1", "c-1", "function", "candidate", ASKED, lambda: CALLS)
HI = {"role": "user", "content": "hi"}


def _turn(**changes: Any) -> dict[str, Any]:
    """A replay's turn result as `turn_result` writes it (a user message, an agent message
    with two tool calls, their tool messages, the answer), some keys changed (None drops
    one)."""
    appended = [
        {"role": "user", "content": "Where is my package?"},
        {"role": "agent", "content": None, "toolCalls": [
            {"id": "call-1", "toolId": "search", "arguments": {"query": "package"}},
            {"id": "call-2", "toolId": "refund", "arguments": {"order": 7}},
        ]},
        {"role": "tool", "content": FOUND,
         "toolCall": {"toolId": "search", "invocationId": "call-1"}},
        {"role": "tool", "content": {"error": "replay: refused"},
         "toolCall": {"toolId": "refund", "invocationId": "call-2"}},
        {"role": "agent", "content": "Try kb-301."},
    ]  # fmt: skip
    result: dict[str, Any] = {
        "runId": "r-1", "conversationId": "c-1", "turnNumber": 1, "appended": appended,
        "response": appended[-1], "retrieved": [], "violations": [],
        "usage": {"steps": 2, "durationMs": 3}, "provider": dict(PROVIDER),
        "output": {"articles": [{"id": "kb-301"}]},
    }  # fmt: skip
    result.update(changes)
    return {k: v for k, v in result.items() if v is not None}


def _round_trip(output: dict[str, Any], row: RowParts = ROW) -> tuple[Any, Any]:
    kept = compact_output(output, row)
    return kept, full_output(json.loads(json.dumps(kept)), row)


def test_a_plain_turn_keeps_only_what_its_row_does_not() -> None:
    output = _turn()
    kept, full = _round_trip(output)
    assert kept == {"usage": output["usage"], "output": output["output"],
                    "replies": [2, "Try kb-301."]}  # fmt: skip
    assert json.dumps(full) == json.dumps(output)


def test_a_whole_usage_is_kept_as_its_values() -> None:
    """A usage of every figure a turn writes, in its order, keeps only the figures; one of
    other keys or order is kept as it is."""
    usage = {"steps": 2, "promptTokens": 5, "completionTokens": 7, "totalCostUsd": 0,
             "durationMs": 3}  # fmt: skip
    for given, kept_as in (
        (usage, [2, 5, 7, 0, 3]),
        ({**usage, "extra": 1}, {**usage, "extra": 1}),
        (dict(reversed(usage.items())), dict(reversed(usage.items()))),
    ):
        output = _turn(usage=given)
        kept, full = _round_trip(output)
        assert kept["usage"] == kept_as
        assert json.dumps(full) == json.dumps(output)


@pytest.mark.parametrize(
    "reply",
    [
        {"role": "agent", "content": "words", "extra": 1},
        {"content": "words", "role": "agent"},
        {"role": "agent", "content": 7},
        {"role": "agent", "content": ["words"]},
        {"role": "agent", "content": "", "toolCalls": []},
        {"role": "user", "content": "words"},
    ],
)
def test_a_reply_not_of_words_or_calls_alone_is_kept_as_it_is(reply: dict[str, Any]) -> None:
    """Only an agent's message of exactly `{role, content}` with words, or of folded calls
    alone, is kept short; another reads back as it was."""
    output = _turn()
    output["appended"] = [*output["appended"], reply]
    output["response"] = reply
    kept, full = _round_trip(output)
    assert kept["replies"] == [2, "Try kb-301.", reply]
    assert json.dumps(full) == json.dumps(output)


def test_a_reply_kept_before_it_was_short_reads_as_it_did() -> None:
    """A compact output stored before m0049 keeps its replies as messages."""
    stored = {"usage": {"steps": 2, "durationMs": 3}, "output": {"articles": [{"id": "kb-301"}]},
              "replies": [{"role": "agent", "content": None, "toolCalls": 2},
                          {"role": "agent", "content": "Try kb-301."}]}  # fmt: skip
    assert json.dumps(full_output(stored, ROW)) == json.dumps(_turn())


def test_tool_messages_unlike_their_stored_calls_are_kept() -> None:
    """A call stored otherwise than its message says (here another result), or calls the
    row doesn't have, leave the messages as they were; the output reads back the same."""
    other = [CALLS[0], {**CALLS[1], "error": "another"}]
    for calls in (other, CALLS[:1], []):
        row = RowParts("r-1", "c-1", "function", "candidate", ASKED, lambda calls=calls: calls)
        output = _turn()
        kept, full = _round_trip(output, row)
        assert kept["replies"] == [*output["appended"][1:-1], "Try kb-301."]
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
        {
            "appended": [
                {"role": "user", "content": "Where is my package?"},
                {
                    "role": "agent",
                    "content": None,
                    "toolCalls": [
                        {"id": "call-1", "toolId": "search", "arguments": {"query": "package"}}
                    ],
                },
                {
                    "role": "tool",
                    "content": FOUND,
                    "toolCall": {"toolId": "search", "invocationId": "call-1"},
                },
                {
                    "role": "agent",
                    "content": None,
                    "toolCalls": [{"id": "call-2", "toolId": "refund", "arguments": {"order": 7}}],
                },
                {"role": "agent", "content": "no tool message for call-2"},
            ]
        },
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
    assert compact_output(other, ROW) is other
    reordered = {"conversationId": "c-1", **_turn()}
    assert compact_output(reordered, ROW) is reordered
    assert compact_output(_turn(conversationId="c-2"), ROW) == _turn(conversationId="c-2")
    for value in (None, "text", [1]):
        assert compact_output(value, ROW) == value
        assert full_output(value, ROW) == value
    assert full_output(_turn(), ROW) == _turn()  # whole, as stored before m0046


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


@pytest.mark.parametrize(
    "text",
    ["", "Try kb-301.", "naïve café ✓", "[" * 100, "{" * 60 + "[" * 40, "[" * 101,
     "x\ud800y", "\udc00", "quote \" and \\ slash {[", "\ud83d\ude00 pair as one"],
)  # fmt: skip
def test_a_string_is_kept_as_is_exactly_when_its_column_round_trip_gives_it_back(
    text: str,
) -> None:
    """`kept_as_is` tells a string without dumping it; what it tells is what the round trip
    through a JSON column and the depth rule would (too many brackets, a lone surrogate)."""
    stored = dump(text)
    assert stored is not None
    round_trip = stored.count("[") + stored.count("{") <= COPY_DEPTH // 2 and load(stored) == text
    assert kept_as_is(text) is round_trip
