"""Reading a value from outside (a manifest, a stored column, a row) as the shape a rule wants.

A value of another shape reads as absent (`{}`, `[]`, None): the rules then treat it like a
part the pack or the row didn't give, and mypy sees every value narrowed before use.
"""

from __future__ import annotations

from typing_extensions import TypeIs

from .json import JSONObject


def object_of(value: object) -> JSONObject:
    """The value if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def object_or_none(value: object) -> JSONObject | None:
    """The value if it is an object, else None."""
    return value if isinstance(value, dict) else None


def objects_of(value: object) -> list[JSONObject]:
    """The objects of a list (none when the value is no list)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def text_or_none(value: object) -> str | None:
    """The value if it is a string, else None."""
    return value if isinstance(value, str) else None


def texts_of(value: object) -> list[str]:
    """The strings of a list (none when the value is no list)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def whole_or_none(value: object) -> int | None:
    """The value if it is a whole number (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_number(value: object) -> TypeIs[int | float]:
    """Whether the value is a JSON number: an int or a float, not a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool)
