"""Checks of decisions and answers against what a candidate did."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.api.eval_results import DifferenceAnswer
from kindgi_dev.api.routing import shape
from kindgi_dev.domain.checks import MadeCall, deterministic_answer_check
from kindgi_dev.domain.checks import check_decisions as differences_of
from kindgi_dev.domain.expectations import Answer, Decisions, ExpectedCall

TICKET = "acme-ops.create-ticket"
EMAIL = "acme-ops.send-email"
SEARCH = "acme-ops.search-articles"


def check_decisions(*given: Any) -> list[dict[str, Any]]:
    """The differences as an eval run's answer shows them."""
    return [shape(DifferenceAnswer, found) for found in differences_of(*given)]


def wrong(*should: dict, must_not: list[str] | None = None) -> Decisions:
    """A decisions correction saying the run decided wrong."""
    calls = tuple(ExpectedCall(call["toolId"], call.get("args")) for call in should)
    return Decisions("wrong", calls, tuple(must_not or ()))


def test_should_call_with_args_called_with_other_args() -> None:
    made = [MadeCall(TICKET, {"priority": "low", "team": "billing"}, refused=False)]
    decisions = wrong({"toolId": TICKET, "args": {"priority": "high", "team": "billing"}})
    assert check_decisions(decisions, made, []) == [
        {
            "kind": "field-value",
            "toolId": TICKET,
            "field": "priority",
            "expected": "high",
            "actual": "low",
        }
    ]


def test_should_call_missing_field() -> None:
    made = [MadeCall(TICKET, {"team": "billing"}, refused=False)]
    decisions = wrong({"toolId": TICKET, "args": {"priority": "high"}})
    assert check_decisions(decisions, made, []) == [
        {"kind": "missing-field", "toolId": TICKET, "field": "priority", "expected": "high"}
    ]


def test_the_best_call_is_checked() -> None:
    made = [
        MadeCall(TICKET, {"priority": "low"}, refused=False),
        MadeCall(TICKET, {"priority": "high", "team": "billing"}, refused=False),
    ]
    decisions = wrong({"toolId": TICKET, "args": {"priority": "high", "team": "billing"}})
    assert check_decisions(decisions, made, []) == []


def test_should_call_not_made() -> None:
    made = [MadeCall(SEARCH, {"query": "q"}, refused=False)]
    assert check_decisions(wrong({"toolId": TICKET}), made, [SEARCH]) == [
        {"kind": "count", "toolId": TICKET, "expected": 1, "actual": 0}
    ]


def test_should_call_refused() -> None:
    made = [MadeCall(TICKET, {"priority": "low"}, refused=True)]
    decisions = wrong({"toolId": TICKET, "args": {"priority": "low"}})
    assert check_decisions(decisions, made, []) == [{"kind": "refused", "toolId": TICKET}]


def test_must_not_call_counts_every_call() -> None:
    made = [
        MadeCall(EMAIL, {"to": "a"}, refused=False),
        MadeCall(EMAIL, {"to": "b"}, refused=True),
        MadeCall(TICKET, {}, refused=False),
    ]
    decisions = wrong({"toolId": TICKET}, must_not=[EMAIL, SEARCH])
    assert check_decisions(decisions, made, []) == [
        {"kind": "must-not-call", "toolId": EMAIL, "actual": 2}
    ]


def test_right_decisions_want_the_same_tools_by_name_in_any_order() -> None:
    recorded = [SEARCH, TICKET, SEARCH]
    same = [MadeCall(TICKET, {}, False), MadeCall(SEARCH, {"query": "other"}, False)]
    assert check_decisions(Decisions("right"), same, recorded) == []
    other = [MadeCall(SEARCH, {}, False), MadeCall(EMAIL, {}, False)]
    assert check_decisions(Decisions("right"), other, recorded) == [
        {"kind": "count", "toolId": TICKET, "expected": 1, "actual": 0},
        {"kind": "count", "toolId": EMAIL, "expected": 0, "actual": 1},
    ]


def test_unknown_verdict_is_an_error() -> None:
    with pytest.raises(ValueError):
        check_decisions(Decisions("maybe"), [], [])
    with pytest.raises(ValueError):
        deterministic_answer_check(Answer("maybe"), "a", "b")


def test_right_answer_wants_the_recorded_words() -> None:
    expect = Answer("right")
    assert deterministic_answer_check(expect, "Reset it  here.", "reset it\nHERE.")[0]
    assert not deterministic_answer_check(expect, "Reset it here.", "Try again.")[0]
    assert deterministic_answer_check(expect, "Reset it here.", None) == (
        False,
        "the version gave no answer text",
    )


def test_wrong_answer_with_should_say() -> None:
    expect = Answer("wrong", should_say="Reset  your password", why="too vague")
    passed, reason = deterministic_answer_check(
        expect, "Try again.", "Please reset your\npassword."
    )
    assert (passed, reason) == (True, "the answer says what it should say")
    assert not deterministic_answer_check(expect, "Try again.", "Try again later.")[0]


def test_wrong_answer_with_only_why_wants_another_answer() -> None:
    expect = Answer("wrong", why="It did not answer.")
    assert deterministic_answer_check(expect, "Try again.", "Open Settings.")[0]
    assert deterministic_answer_check(expect, "Try again.", " try  AGAIN. ") == (
        False,
        "the answer is the recorded one, which was wrong",
    )
