"""An output's items: list elements, the typed answer itself, and the answer's text."""

from __future__ import annotations

from typing import Any

from kindgi_dev.domain.items import Item, answer_text, item_at, items_of, same_value
from kindgi_dev.domain.pointers import resolve

ARTICLES = [
    {"id": "kb-101", "title": "Reset your password"},
    {"id": "kb-102", "title": "Change the email on your account"},
    {"id": "kb-103", "title": "Turn on two-step sign-in"},
]


def turn(articles: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    """An agent turn's output as the runtime records it."""
    return {
        "output": {"articles": articles},
        "appended": [
            {"role": "user", "content": "I forgot my password and can't sign in."},
            {"role": "agent", "content": None, "toolCalls": [{"toolId": "acme-ops.search"}]},
            {"role": "tool", "content": {"articles": articles}},
            {"role": "agent", "content": answer},
        ],
        "response": {"role": "agent", "content": answer},
    }


def test_article_picker_0_1_0_has_four_items() -> None:
    output = turn(ARTICLES, "Here are three articles.")
    items = items_of(output)
    assert [(i.key, i.pointer, i.rank, i.identified) for i in items] == [
        ("kb-101", "/output/articles/0", 0, True),
        ("kb-102", "/output/articles/1", 1, True),
        ("kb-103", "/output/articles/2", 2, True),
        ("answer", "/appended/3/content", None, False),
    ]
    assert all(resolve(output, i.pointer) == i.value for i in items)


def test_article_picker_0_2_0_has_two_items() -> None:
    items = items_of(turn(ARTICLES[:1], "This article resets your password."))
    assert items == [
        Item("kb-101", "/output/articles/0", 0, ARTICLES[0], identified=True),
        Item("answer", "/appended/3/content", None, "This article resets your password.", False),
    ]


def test_elements_without_id_are_named_by_pointer_and_key_field_identifies() -> None:
    output = {"output": {"groups": {"best": [{"title": "x"}, {"key": "k-1"}, 7]}}}
    items = items_of(output)
    assert [(i.key, i.pointer, i.rank, i.identified) for i in items] == [
        ("/output/groups/best/0", "/output/groups/best/0", 0, False),
        ("k-1", "/output/groups/best/1", 1, True),
        ("/output/groups/best/2", "/output/groups/best/2", 2, False),
    ]


def test_lists_inside_an_element_are_part_of_its_value() -> None:
    element = {"id": 5, "tags": ["a", "b"]}
    assert items_of({"output": {"rows": [element]}}) == [
        Item("5", "/output/rows/0", 0, element, identified=True)
    ]


def test_list_less_typed_answer_is_one_item() -> None:
    output = {"output": {"category": "billing"}, "appended": []}
    assert items_of(output) == [Item("output", "/output", None, {"category": "billing"}, False)]


def test_empty_list_gives_no_output_item() -> None:
    assert items_of({"output": {"articles": []}}) == []


def test_answer_text_is_the_last_agent_message_with_string_content() -> None:
    output = {
        "appended": [
            {"role": "agent", "content": "first"},
            {"role": "user", "content": "more?"},
            {"role": "agent", "content": "second"},
            {"role": "agent", "content": None, "toolCalls": []},
        ]
    }
    assert items_of(output) == [Item("answer", "/appended/2/content", None, "second", False)]
    assert answer_text(output) == "second"
    assert answer_text({"appended": [{"role": "user", "content": "q"}]}) is None


def test_flow_output_uses_an_empty_prefix() -> None:
    items = items_of({"articles": [{"id": "kb-201"}, {"title": "t"}]})
    assert [(i.key, i.pointer) for i in items] == [
        ("kb-201", "/articles/0"),
        ("/articles/1", "/articles/1"),
    ]
    assert items_of({"count": 2}) == [Item("output", "", None, {"count": 2}, False)]
    assert items_of(None) == []


def test_keys_with_slashes_are_escaped_in_pointers() -> None:
    items = items_of({"a/b": [1]})
    assert items[0].pointer == "/a~1b/0"


OUTPUTS = [
    turn(ARTICLES, "Here are three articles."),
    {"output": {"groups": {"best": [{"title": "x"}, {"key": "k-1"}, 7]}, "n": [1]}},
    {"output": {"rows": [{"id": 5, "tags": ["a", "b"]}]}},
    {"output": {"category": "billing"}, "appended": []},
    {"articles": [{"id": "kb-201"}, {"title": "t"}]},
    {"count": 2},
    {"a/b": [1]},
    [{"id": "x"}, 3],
]


def test_item_at_finds_every_item_of_items_of_by_its_pointer() -> None:
    for output in OUTPUTS:
        assert [item_at(output, i.pointer) for i in items_of(output)] == items_of(output)


def test_item_at_is_none_where_a_pointer_names_no_item() -> None:
    output = OUTPUTS[0]
    for pointer in (
        "",
        "/output",
        "/output/articles",
        "/output/articles/3",
        "/output/articles/01",
        "/output/articles/0/title",
        "/appended/0/content",
        "/appended/3",
        "/outputs/articles/0",
    ):
        assert item_at(output, pointer) is None, pointer
    assert item_at(OUTPUTS[2], "/output/rows/0/tags/1") is None
    assert item_at(OUTPUTS[5], "/count") is None
    assert item_at(OUTPUTS[6], "/a/b/0") is None
    assert item_at(None, "") is None


def test_same_value_tells_booleans_from_numbers() -> None:
    assert same_value({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not same_value(True, 1)
    assert not same_value({"a": 1}, {"a": 1, "b": 2})
    assert not same_value([1, 2], [2, 1])
    assert not same_value("1", 1)
