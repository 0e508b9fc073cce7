"""A body's nesting is counted outside its strings: brackets and escaped quotes inside a
string neither add depth nor hide the depth after them."""

from __future__ import annotations

import json

import pytest

from kindgi_dev.api import limits
from kindgi_dev.domain.errors import BadInput


def nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth - 1):
        value = [value]
    return value


def test_brackets_and_quotes_inside_strings_are_no_nesting() -> None:
    body = {"name": "[" * 100 + "{" * 100, "quoted": '"' + "[" * 100, "slash": "\\", "x": 1}
    raw = json.dumps(body).encode()
    assert limits.load(raw) == body
    assert limits.load(json.dumps({"deep": nested(limits.MAX_DEPTH - 1)}).encode())


@pytest.mark.parametrize("before", ['"', "\\", '\\"', "\\\\", "]" * 100 + '"'])
def test_nesting_after_an_escaped_quote_or_backslash_is_still_counted(before: str) -> None:
    raw = json.dumps({"text": before, "deep": nested(limits.MAX_DEPTH + 1)}).encode()
    with pytest.raises(BadInput, match="nests deeper than 64 levels"):
        limits.load(raw)
