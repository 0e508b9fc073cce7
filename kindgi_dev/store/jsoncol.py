"""JSON columns: compact text in, Python values out."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Generic, TypeVar

from pydantic import TypeAdapter

from ..domain.json import JSON, JSONObject
from ..domain.stored_values import COPY, COPY_DEPTH, repaired

T = TypeVar("T")


def dump(value: object) -> str | None:
    """Compact JSON text, or NULL for None: always a value every answer can render.

    What a model or a tool returned reached no request's checks, so a run's output may nest
    hundreds of levels deep, hold a NaN or a lone surrogate; such a value is kept repaired
    by the rule m0029 applies to older rows (`domain.stored_values`), not stored to make
    every later read of it fail."""
    if value is None:
        return None
    try:
        text = _text(value)
    except (ValueError, RecursionError):
        return _text(repaired(value, COPY))
    if text.count("[") + text.count("{") > COPY_DEPTH or not _utf8(text):
        fixed = repaired(value, COPY)
        return text if fixed is value else _text(fixed)
    return text


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
"""The columns' encoder, made once: `json.dumps` with these options makes one a call."""


def _text(value: object) -> str:
    return _ENCODER.encode(value)


def _utf8(text: str) -> bool:
    """Whether SQLite can store the text: no lone surrogate in it."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def load(text: str | bytes | None) -> JSON:
    """The value of a JSON column that holds any JSON (None for NULL): the caller narrows it
    to the shape its column was written in."""
    found: JSON = None if text is None else json.loads(text)
    return found


def load_object(text: str | bytes | None) -> JSONObject:
    """The object a JSON column holds; a column of any other value (NULL too) is refused:
    the store wrote an object there."""
    found = load(text)
    if not isinstance(found, dict):
        raise ValueError(f"a JSON object was stored here, not {type(found).__name__}")
    return found


def load_objects(text: str | bytes | None) -> list[JSONObject] | None:
    """The list of objects a JSON column holds (None for NULL); any other value is refused."""
    found = load(text)
    if found is None:
        return None
    if not isinstance(found, list):
        raise ValueError(f"a JSON list was stored here, not {type(found).__name__}")
    objects = [item for item in found if isinstance(item, dict)]
    if len(objects) != len(found):
        raise ValueError("a list of JSON objects was stored here")
    return objects


class Codec(Generic[T]):
    """The stored format of a JSON column that holds a known shape: a pydantic `TypeAdapter`
    over the record (or, where stored keys are camelCase, a `TypedDict` of them) it holds.

    The adapter is built when first used, as `store/eval_runs.py` does: building them at
    import slows every start."""

    def __init__(self, kind: type[T]) -> None:
        self.kind = kind

    @cached_property
    def adapter(self) -> TypeAdapter[T]:
        """The pydantic adapter of the shape."""
        return TypeAdapter(self.kind)

    def dump(self, value: T | None) -> str | None:
        """The column's text for a value (NULL for None), written as `dump` writes any JSON."""
        return None if value is None else dump(self.adapter.dump_python(value, mode="json"))

    def load(self, text: str | bytes | None) -> T | None:
        """The value a column's text holds (None for NULL), checked against the shape."""
        return None if text is None else self.adapter.validate_json(text)
