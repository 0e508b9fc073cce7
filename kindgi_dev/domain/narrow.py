"""Reading a JSON value from outside (a manifest, a stored column) as the shape a rule wants.

A value of another shape reads as absent (`{}`, `[]`, None): the rules then treat it like a
part the pack or the row didn't give, and mypy sees every value narrowed before use.
"""

from __future__ import annotations

from typing_extensions import TypeIs

from .json import JSON, JSONObject


def obj(value: JSON) -> JSONObject:
    """The value if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def obj_or_none(value: JSON) -> JSONObject | None:
    """The value if it is an object, else None."""
    return value if isinstance(value, dict) else None


def objects(value: JSON) -> list[JSONObject]:
    """The objects of a list (none when the value is no list)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def text_or_none(value: JSON) -> str | None:
    """The value if it is a string, else None."""
    return value if isinstance(value, str) else None


def texts(value: JSON) -> list[str]:
    """The strings of a list (none when the value is no list)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def is_number(value: object) -> TypeIs[int | float]:
    """Whether the value is a JSON number: an int or a float, not a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool)
