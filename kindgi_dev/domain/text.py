"""Blank text: what a message or a reason can't be."""

from __future__ import annotations

BLANK = " \t\n\r\f\v"
"""The whitespace a blank text is made of: ASCII's, on which Python's `str.strip()` and
JSON Schema's regexes agree (they differ on others, such as U+001C)."""

NOT_BLANK_PATTERN = "[^ \\t\\n\\r\\f\\v]"
"""A JSON Schema `pattern` a text matches when it isn't blank."""


def is_blank(text: str) -> bool:
    """Whether `text` is empty or only `BLANK` characters."""
    return not text.strip(BLANK)
