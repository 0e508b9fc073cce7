"""RFC 6901 pointers: parsing, escaping and resolving in a run's output."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.pointers import child, escape_token, format_pointer, parse_pointer, resolve

DOC = {
    "output": {"articles": [{"id": "kb-101"}, {"id": "kb-102"}]},
    "a/b": {"m~n": 7},
    "": "empty key",
}


def test_parse_root_and_tokens() -> None:
    assert parse_pointer("") == []
    assert parse_pointer("/") == [""]
    assert parse_pointer("/output/articles/0") == ["output", "articles", "0"]


def test_parse_unescapes_in_order() -> None:
    assert parse_pointer("/a~1b/m~0n") == ["a/b", "m~n"]
    assert parse_pointer("/~01") == ["~1"]


@pytest.mark.parametrize("text", ["output", "/a~2", "/a~", "/~x/b"])
def test_parse_rejects_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_pointer(text)


def test_escape_and_format_round_trip() -> None:
    assert escape_token("a/b~c") == "a~1b~0c"
    assert format_pointer(["a/b", "m~n", 3]) == "/a~1b/m~0n/3"
    assert parse_pointer(format_pointer(["a/b", "m~n"])) == ["a/b", "m~n"]
    assert child("/output", "articles") == "/output/articles"
    assert child("", 0) == "/0"


def test_resolve() -> None:
    assert resolve(DOC, "") is DOC
    assert resolve(DOC, "/output/articles/1") == {"id": "kb-102"}
    assert resolve(DOC, "/output/articles/0/id") == "kb-101"
    assert resolve(DOC, "/a~1b/m~0n") == 7
    assert resolve(DOC, "/") == "empty key"


@pytest.mark.parametrize(
    ("pointer", "reason"),
    [
        ("/missing", "no key 'missing'"),
        ("/output/articles/2", "has 2 elements, no index 2"),
        ("/output/articles/01", "not a list index"),
        ("/output/articles/-", "not a list index"),
        ("/output/articles/0/id/x", "neither an object nor a list"),
    ],
)
def test_resolve_failures_say_why(pointer: str, reason: str) -> None:
    with pytest.raises(LookupError, match=reason):
        resolve(DOC, pointer)


def test_resolve_rejects_invalid_pointer() -> None:
    with pytest.raises(ValueError):
        resolve(DOC, "output")
