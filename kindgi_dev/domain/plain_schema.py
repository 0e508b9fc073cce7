"""A JSON Schema of the common keywords only, and whether a value matches it, without
`jsonschema`.

An agent's output schema is mostly `type`, `properties`, `required`, `items`, `enum` and
`additionalProperties`. For such a schema a match is decided here in microseconds, and
`jsonschema` (2 MB once imported, and about 0.3 ms a replayed case to check an answer) is
loaded only when an answer breaks it, to say how, or for a schema using any other keyword.
A "match" here is never wrong; a "no match" goes to `jsonschema`, which has the last word.
"""

from __future__ import annotations

from collections.abc import Mapping

from .json import JSON

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_NOTES = frozenset({"title", "description"})
"""Keywords that only annotate (each a string) and never fail a value."""


def is_plain(schema: JSON) -> bool:
    """Whether `schema` is a valid 2020-12 schema of only the keywords `matches` knows."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    return all(_plain_keyword(keyword, value) for keyword, value in schema.items())


def _plain_keyword(keyword: str, value: JSON) -> bool:
    """Whether one keyword of a schema is one `matches` knows, with a valid value."""
    if keyword in _NOTES:
        return isinstance(value, str)
    if keyword == "type":
        if isinstance(value, str):
            return value in _TYPES
        names = value if isinstance(value, list) else []
        strings = [n for n in names if isinstance(n, str)]
        return (
            bool(names)
            and len(strings) == len(names)
            and len(set(strings)) == len(names)
            and _TYPES.issuperset(strings)
        )
    if keyword == "properties":
        return isinstance(value, dict) and all(is_plain(s) for s in value.values())
    if keyword == "required":
        return (
            isinstance(value, list)
            and all(isinstance(n, str) for n in value)
            and len(set(map(str, value))) == len(value)
        )
    if keyword in ("items", "additionalProperties"):
        return is_plain(value)
    if keyword == "enum":
        return isinstance(value, list) and bool(value)
    return False


def matches(schema: JSON, value: JSON) -> bool:
    """Whether `value` matches the plain `schema` (`is_plain`); False may also mean only
    "not sure" (an `enum` of objects, say), which `jsonschema` then decides."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind is not None and not _of_type(kind, value):
        return False
    if "enum" in schema and not _in_enum(schema["enum"], value):
        return False
    if isinstance(value, dict):
        return _object_matches(schema, value)
    if isinstance(value, list) and "items" in schema:
        items = schema["items"]
        return all(matches(items, item) for item in value)
    return True


def _object_matches(schema: Mapping[str, JSON], value: Mapping[str, JSON]) -> bool:
    """`properties`, `required` and `additionalProperties` on an object."""
    required = schema.get("required")
    if isinstance(required, list) and not all(name in value for name in required):
        return False
    properties = schema.get("properties")
    known = properties if isinstance(properties, dict) else {}
    extra = schema.get("additionalProperties", True)
    return all(matches(known.get(name, extra), item) for name, item in value.items())


def _of_type(kind: JSON, value: JSON) -> bool:
    """Whether `value` is of the named JSON type, or of one of the named types."""
    if isinstance(kind, list):
        return any(_of_type(k, value) for k in kind)
    if kind == "string":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return kind == "number" and isinstance(value, int | float)


def _in_enum(options: JSON, value: JSON) -> bool:
    """Whether `value` is one of `options`, compared strictly: a string, a number, a boolean
    or null of the same type and value (anything else is left to `jsonschema`)."""
    if isinstance(value, dict | list) or not isinstance(options, list):
        return False
    return any(type(o) is type(value) and o == value for o in options)
