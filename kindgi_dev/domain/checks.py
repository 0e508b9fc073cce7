"""Checks of what a correction says a run should have done or said, against a candidate.

Decisions are checked exactly against the calls the candidate made; answers by a judging
model, or, with none configured, by the deterministic judge here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kindgi_dev.domain.expectations import Answer, Decisions, ExpectedCall
from kindgi_dev.domain.items import same_value
from kindgi_dev.domain.json import JSON, JSONObject


@dataclass(frozen=True)
class MadeCall:
    """One tool call the candidate made, and whether the replay refused it."""

    tool_id: str
    arguments: JSON
    refused: bool


@dataclass(frozen=True)
class Difference:
    """How a candidate differs from a checked part: a call count, a refused call, an
    argument field missing or valued otherwise, a must-not-call made, or its answer."""

    kind: str
    tool_id: str | None = None
    field: str | None = None
    expected: JSON = None
    actual: JSON = None
    reason: str | None = None


def check_decisions(
    decisions: Decisions, made: Sequence[MadeCall], recorded_tool_ids: Sequence[str]
) -> list[Difference]:
    """The differences between a decisions correction and the calls made; empty means it passed.

    `right` wants the tools the past run called, `recorded_tool_ids`.
    """
    verdict = decisions.verdict
    if verdict == "right":
        return _same_tools(made, recorded_tool_ids)
    if verdict == "wrong":
        differences: list[Difference] = []
        for expected in decisions.should_call or ():
            differences.extend(_should_call(expected, made))
        for tool_id in decisions.must_not_call or ():
            count = sum(1 for call in made if call.tool_id == tool_id)
            if count:
                differences.append(Difference("must-not-call", tool_id, actual=count))
        return differences
    raise ValueError(f'decisions verdict is "right" or "wrong", not {verdict!r}')


def _same_tools(made: Sequence[MadeCall], recorded_tool_ids: Sequence[str]) -> list[Difference]:
    """A count difference for each tool called on one side only (by name, in any order)."""
    expected = Counter(recorded_tool_ids)
    actual = Counter(call.tool_id for call in made)
    tool_ids = dict.fromkeys([*recorded_tool_ids, *(call.tool_id for call in made)])
    return [
        _count(tool_id, expected[tool_id], actual[tool_id])
        for tool_id in tool_ids
        if (expected[tool_id] > 0) != (actual[tool_id] > 0)
    ]


def _count(tool_id: str, expected: int, actual: int) -> Difference:
    """A call-count difference."""
    return Difference("count", tool_id, expected=expected, actual=actual)


def _should_call(expected: ExpectedCall, made: Sequence[MadeCall]) -> list[Difference]:
    """The differences for one expected call: not made, refused, or its arguments' fields."""
    tool_id = expected.tool_id
    calls = [call for call in made if call.tool_id == tool_id]
    if not calls:
        return [_count(tool_id, 1, 0)]
    differences: list[Difference] = []
    ran = [call for call in calls if not call.refused]
    if not ran:
        differences.append(Difference("refused", tool_id))
    args = expected.args
    if isinstance(args, dict):
        per_call = [_field_differences(tool_id, args, call.arguments) for call in ran or calls]
        fewest = min(per_call, key=len)
        differences.extend(fewest)
    return differences


def _field_differences(tool_id: str, args: JSONObject, actual: JSON) -> list[Difference]:
    """Each expected argument field missing from, or valued otherwise in, one call's arguments."""
    given = actual if isinstance(actual, dict) else {}
    differences: list[Difference] = []
    for field, value in args.items():
        if field not in given:
            differences.append(Difference("missing-field", tool_id, field, expected=value))
        elif not same_value(given[field], value):
            differences.append(
                Difference("field-value", tool_id, field, expected=value, actual=given[field])
            )
    return differences


def normalize_text(text: str) -> str:
    """Text with its whitespace collapsed to single spaces, trimmed and case-folded."""
    return " ".join(text.split()).casefold()


class AnswerCheck(NamedTuple):
    """Whether an answer met its correction's expectation, and why in words."""

    passed: bool
    reason: str


class NoVerdict(AnswerCheck):
    """A failed check the judging model gave no verdict for (its call failed, or it answered
    no pass/fail): never kept, so a later run asks the judge again."""

    __slots__ = ()


def deterministic_answer_check(
    expectation: Answer, recorded_answer: str | None, candidate_answer: str | None
) -> AnswerCheck:
    """Check an answer correction without a model: passed, and the reason.

    `right` wants the recorded answer again; `wrong` wants `shouldSay` in the answer, or,
    with only `why`, any answer other than the recorded one.
    """
    if candidate_answer is None:
        return AnswerCheck(False, "the version gave no answer text")
    answer = normalize_text(candidate_answer)
    recorded = None if recorded_answer is None else normalize_text(recorded_answer)
    verdict = expectation.verdict
    if verdict == "right":
        if answer == recorded:
            return AnswerCheck(True, "the answer says what the recorded one said")
        return AnswerCheck(False, "the answer differs from the recorded one, which was right")
    if verdict != "wrong":
        raise ValueError(f'answer verdict is "right" or "wrong", not {verdict!r}')
    should_say = expectation.should_say
    if isinstance(should_say, str) and should_say.strip():
        if normalize_text(should_say) in answer:
            return AnswerCheck(True, "the answer says what it should say")
        return AnswerCheck(False, f"the answer does not say {should_say!r}")
    if answer != recorded:
        return AnswerCheck(True, "the answer differs from the recorded one, which was wrong")
    return AnswerCheck(False, "the answer is the recorded one, which was wrong")
