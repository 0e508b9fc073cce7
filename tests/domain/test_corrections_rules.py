"""The rules of a correction body, of judge classes, and of which items a correction shows."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.domain import corrections as rules
from kindgi_dev.domain.errors import ValidationFailed
from kindgi_dev.domain.expectations import Answer, Decisions, ExpectedCall, GivenItem

ITEM = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}


def given(fields: dict[str, Any]) -> GivenItem:
    """An item as a body gives it."""
    return GivenItem(**fields)


def refused(check: Any, *args: Any, **kwargs: Any) -> ValidationFailed:
    """The ValidationFailed a check raises."""
    with pytest.raises(ValidationFailed) as caught:
        check(*args, **kwargs)
    return caught.value


def test_an_item_is_checked_and_stored_as_yes_or_no() -> None:
    item = rules.check_item(given({**ITEM, "reason": "Resets it"}), "items/0")
    assert item == rules.CorrectedItem("kb-101", "/output/articles/0", 0, "yes", "Resets it")
    assert rules.check_item(given({**ITEM, "verdict": "wrong"}), "").verdict == "no"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"key": ""}, "items/0/key"),
        ({"key": None}, "items/0/key"),
        ({"pointer": "output/0"}, "items/0/pointer"),
        ({"pointer": "/a~2"}, "items/0/pointer"),
        ({"pointer": None}, "items/0/pointer"),
        ({"rank": -1}, "items/0/rank"),
        ({"rank": True}, "items/0/rank"),
        ({"rank": 1.5}, "items/0/rank"),
        ({"verdict": "yes"}, "items/0/verdict"),
        ({"verdict": "maybe"}, "items/0/verdict"),
        ({"reason": "x" * 4001}, "items/0/reason"),
        ({"reason": 3}, "items/0/reason"),
    ],
)
def test_a_bad_item_names_its_field(change: dict[str, Any], field: str) -> None:
    error = refused(rules.check_item, given({**ITEM, **change}), "items/0")
    assert error.details["field"] == field


def test_a_reason_of_exactly_4000_characters_passes() -> None:
    assert rules.check_reason("x" * 4000, "reason") == "x" * 4000


def test_an_item_without_key_is_refused() -> None:
    item = GivenItem("", "/output/articles/0", "right")
    assert refused(rules.check_item, item, "").details["field"] == "key"


def test_judgment_words_are_yes_and_no_and_the_pointer_may_be_absent() -> None:
    item = rules.check_item(
        GivenItem("k", None, "no"), "", words=rules.YES_NO, pointer_required=False
    )
    assert (item.pointer, item.rank, item.verdict) == (None, None, "no")


def test_items_need_distinct_keys() -> None:
    error = refused(rules.check_items, [given(ITEM), given({**ITEM, "rank": 1})])
    assert error.details["field"] == "items/1/key"


def test_right_wrong_maps_to_yes_no_and_back() -> None:
    assert [rules.stored_verdict(v) for v in ("right", "wrong", "yes", "no")] == [
        "yes",
        "no",
        "yes",
        "no",
    ]
    assert [rules.right_wrong(v) for v in ("yes", "no")] == ["right", "wrong"]


def test_decisions_right_and_wrong() -> None:
    assert rules.check_decisions(Decisions("right")) == Decisions("right")
    wrong = Decisions("wrong", (ExpectedCall("t.search", {"q": "x"}),), ("t.log",))
    assert rules.check_decisions(wrong) == wrong


@pytest.mark.parametrize(
    ("decisions", "field"),
    [
        (Decisions("wrong"), "decisions"),
        (Decisions("wrong", (), ()), "decisions"),
        (Decisions("right", None, ("t.log",)), "decisions"),
        (Decisions("meh"), "decisions/verdict"),
        (Decisions("wrong", (ExpectedCall("", {}),)), "decisions/shouldCall/0/toolId"),
        (Decisions("wrong", (ExpectedCall("t", 3),)), "decisions/shouldCall/0/args"),
        (Decisions("wrong", None, ("",)), "decisions/mustNotCall/0"),
        (Decisions("wrong", (ExpectedCall("t"),), ("t",)), "decisions/shouldCall/0/toolId"),
    ],
)
def test_bad_decisions_name_their_field(decisions: Decisions, field: str) -> None:
    assert refused(rules.check_decisions, decisions).details["field"] == field


def test_answer_right_or_wrong_with_words() -> None:
    assert rules.check_answer(Answer("right")) == Answer("right")
    assert rules.check_answer(Answer("wrong", why="too long")) == Answer("wrong", why="too long")
    assert refused(rules.check_answer, Answer("wrong")).details["field"] == "answer"
    too_long = Answer("wrong", should_say="x" * 4001)
    assert refused(rules.check_answer, too_long).details["field"] == "answer/shouldSay"
    assert refused(rules.check_answer, Answer("right", why="x")).details["field"] == "answer"


def test_status_enum() -> None:
    assert rules.check_status("wont-fix") == "wont-fix"
    assert refused(rules.check_status, "closed").details["field"] == "status"


def test_a_should_call_tool_the_agent_lacks_is_refused_by_field() -> None:
    decisions = Decisions("wrong", (ExpectedCall("a"), ExpectedCall("b")))
    rules.check_tools(decisions, {"a", "b"}, "decisions")
    error = refused(rules.check_tools, decisions, {"a"}, "decisions")
    assert error.details["field"] == "decisions/shouldCall/1/toolId"


def test_item_value_resolves_or_is_item_not_found() -> None:
    output = {"output": {"articles": [{"id": "kb-101"}]}}
    assert rules.item_value(output, "/output/articles/0", "p") == {"id": "kb-101"}
    assert rules.item_value(output, "", "p") == output
    error = refused(rules.item_value, output, "/output/articles/3", "items/0/pointer")
    assert (error.wire_code, error.status) == ("item-not-found", 400)
    assert error.details["field"] == "items/0/pointer"


def test_an_item_key_that_is_not_the_item_at_its_pointer_is_refused_naming_both() -> None:
    output = {"output": {"articles": [{"id": "kb-101"}, {"id": "kb-102"}, {"title": "t"}]}}

    def given(key: str, pointer: str) -> rules.CorrectedItem:
        return rules.check_item(GivenItem(key, pointer, "right"), "")

    rules.check_key_at(output, given("kb-102", "/output/articles/1"), "pointer")
    rules.check_key_at(output, given("/output/articles/2", "/output/articles/2"), "pointer")
    rules.check_key_at(output, given("whole", ""), "pointer")
    error = refused(
        rules.check_key_at, output, given("kb-103", "/output/articles/1"), "items/0/pointer"
    )
    assert (error.wire_code, error.status) == ("validation-failed", 400)
    assert error.message == (
        "items/0/pointer: /output/articles/1 is item kb-102 in the run's output, not kb-103: "
        "give the key and pointer of the same item"
    )
    assert error.details["key"] == "kb-103" and error.details["found_key"] == "kb-102"
    unnamed = refused(rules.check_key_at, output, given("kb-104", "/output/articles/2"), "p")
    assert unnamed.details["found_key"] == "/output/articles/2"


@pytest.mark.parametrize(
    ("assertable_by", "allowed"),
    [
        (None, True),
        (rules.AssertableBy(min_reviewer_role="admin"), True),
        (rules.AssertableBy(principal_kinds=("user",)), True),
        (rules.AssertableBy(principal_kinds=("service",)), False),
        (rules.AssertableBy(principal_ids=("u-1", "u-2")), True),
        (rules.AssertableBy(principal_ids=("someone-else",)), False),
        (rules.AssertableBy(None, ("user",), ("someone-else",)), False),
    ],
)
def test_who_may_assert_a_class(assertable_by: rules.AssertableBy | None, allowed: bool) -> None:
    assert rules.may_assert(assertable_by, "user", "u-1", "admin") is allowed


def test_a_reviewer_role_below_the_minimum_may_not_assert() -> None:
    senior = rules.AssertableBy(min_reviewer_role="senior")
    assert not rules.may_assert(senior, "user", "u-1", "standard")
    assert rules.may_assert(senior, "user", "u-1", "senior")


def test_which_classes_apply_to_a_run() -> None:
    assert rules.class_applies(rules.ClassScope("tenant"), "p1", "a1")
    assert rules.class_applies(rules.ClassScope("project", "p1"), "p1", "a1")
    assert not rules.class_applies(rules.ClassScope("project", "p2"), "p1", "a1")
    agent = rules.ClassScope("agent", "p1", "a1")
    assert rules.class_applies(agent, "p1", "a1")
    assert not rules.class_applies(agent, "p1", "a2")
    assert not rules.class_applies(rules.ClassScope("agent", "p2", "a1"), "p1", "a1")


class _Verdict(rules.StoredVerdict):
    """A stored verdict whose fields the assertions read by name, as they read rows."""

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


def verdict(vid: str, key: str, rank: int | None, at: str, ended: str | None) -> _Verdict:
    """A verdict as the store gives it."""
    item = rules.CorrectedItem(key, f"/output/articles/{rank}", rank, "yes", None)
    who = rules.Corrector("user", "u-1", "")
    subject = rules.Subject("agent", "a", "1.0.0")
    return _Verdict(vid, "c1", "t", "p", "r1", subject, who, item, at, unregistered_at=ended)


def test_a_live_correction_shows_its_live_verdicts_by_rank() -> None:
    rows = [
        verdict("v1", "kb-102", 1, "t1", "t3"),
        verdict("v2", "kb-101", 0, "t2", None),
        verdict("v3", "kb-102", 1, "t3", None),
        verdict("v4", "answer", None, "t4", None),
    ]
    assert [v["id"] for v in rules.shown_items(rows, None)] == ["v2", "v3", "v4"]


def test_a_replaced_correction_shows_what_was_live_when_it_was_replaced() -> None:
    rows = [
        verdict("v1", "kb-101", 0, "t1", "t2"),
        verdict("v2", "kb-101", 0, "t2", "t5"),
        verdict("v3", "kb-103", 2, "t1", "t3"),
    ]
    assert [v["id"] for v in rules.shown_items(rows, "t5")] == ["v2"]
