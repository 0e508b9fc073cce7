"""Whole numbers given as text (a query value, a header, a form field), read safely.

`str.isdigit()` is true of `'²'`, which `int()` refuses, and of `'٣'`, which it reads as 3;
and `int()` refuses text of more than 4,300 digits. Only ASCII digits are read here, and
never more of them than the largest value allowed has.
"""

from __future__ import annotations

MAX_INT = 2**63 - 1
"""The largest integer SQLite stores (64 bits, signed)."""


def whole_number(text: str, *, most: int = MAX_INT) -> int | None:
    """`text` as a whole number from 0 to `most` written in ASCII digits; None otherwise."""
    if not text.isascii() or not text.isdigit() or len(text) > len(str(most)):
        return None
    value = int(text)
    return value if value <= most else None
