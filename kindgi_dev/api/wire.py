"""Base models of the wire: camelCase names, closed request bodies, reasons per field."""

from __future__ import annotations

import json
from typing import Annotated, Generic, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SkipValidation,
    ValidationError,
)
from pydantic.alias_generators import to_camel
from pydantic.config import JsonDict
from pydantic.json_schema import WithJsonSchema
from pydantic_core import ErrorDetails

from ..domain.bounds import MAX_NUMBER, MIN_NUMBER
from ..domain.errors import BadInput, ValidationFailed
from ..domain.ids import UUID_PATTERN
from ..domain.json import JSON
from ..domain.time import format_time, parse_given_time
from . import limits

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
"""A JSON number answered as given: a whole weight stays `2`, not `2.0`."""


def wire_number(value: float | None) -> float | int | None:
    """A number as JSON shows it: whole floats as integers (`1`, not `1.0`)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[
    int | float, AfterValidator(wire_number), WithJsonSchema({"type": "number"})
]
"""A computed number answered as JSON shows it: a whole weight as `2`, not `2.0`."""


def _wire_time(text: str) -> str:
    try:
        return format_time(parse_given_time(text))
    except ValueError:
        raise ValueError("is not a date-time with a zone, such as 2026-01-01T00:00:00Z") from None


WireTime = Annotated[
    str, AfterValidator(_wire_time), WithJsonSchema({"type": "string", "format": "date-time"})
]
"""A date-time filter: refused unless RFC 3339 (ISO-8601 with a zone), then in the stored form."""

WireUuid = Annotated[str, Field(pattern=UUID_PATTERN, json_schema_extra={"format": "uuid"})]
"""An id the contract types as a UUID, refused (400) in any other spelling."""


class WireModel(BaseModel):
    """A body or answer on the wire: camelCase aliases, unknown fields refused. Only field
    names enter pydantic's string cache: bodies' ids and words would stay in it for good."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        defer_build=True,
        cache_strings="keys",
    )


class OpenModel(WireModel):
    """An answer model whose extra fields pass (for shapes the contract leaves open)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        defer_build=True,
        cache_strings="keys",
    )


class WirePage(WireModel, Generic[T]):
    """A page of a list answer, as every page of the contract: its items, whether more
    follow, and while they do the cursor of the next page. A list names its page by
    subclassing it (`class RunPage(WirePage[Run])`), so `/openapi.json` keeps the page's
    component name and description."""

    data: list[T]
    has_more: bool
    next_cursor: str | None = None


class PageQuery(WireModel):
    """Paging only: a list's `limit` and the `cursor` of the page after."""

    limit: int | None = None
    cursor: str | None = None


class VersionsQuery(PageQuery):
    """Paging of a version list, and whether unregistered versions are in it."""

    include_tombstoned: bool = False


JSON_VALUE: JsonDict = {
    "anyOf": [
        {"type": ["string", "boolean", "null"]},
        {"type": "number", "minimum": MIN_NUMBER, "maximum": MAX_NUMBER},
        {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
        {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/JsonValue"}},
    ]
}
"""Any JSON a body may carry (`/components/schemas/JsonValue`): its numbers within 64 bits,
as `limits.check_numbers` holds every number of a body."""


def _as_given(value: JSON) -> JSON:
    """A JSON value answered as it is: pydantic's walk of the recursive type takes about
    three times as long as this, on a 1 MB value."""
    return value


JsonAny = Annotated[
    JSON,
    SkipValidation,
    PlainSerializer(_as_given, return_type=object),
    WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/JsonValue"}]}),
]
"""A body's opaque JSON value (an input, a call's arguments). `limits.load` read it from
JSON, so it is not validated again: walking the recursive type doubled the parse of a 1 MB
body (`docs/choices.md`)."""
JSON_OBJECT: JsonDict = {
    "type": "object",
    "additionalProperties": {"$ref": "#/components/schemas/JsonValue"},
}
JsonObject = Annotated[dict[str, JsonAny], WithJsonSchema(JSON_OBJECT)]
"""A body's opaque JSON object: checked to be an object, its values taken as read."""


OpenJson = Annotated[
    JSON, SkipValidation, PlainSerializer(_as_given, return_type=object), WithJsonSchema({})
]
"""A JSON value the contract leaves open (schema `{}`: a run's output, an event's payload):
taken and answered as it is, as `JsonAny` is."""
OpenObject = Annotated[
    dict[str, OpenJson], WithJsonSchema({"type": "object", "additionalProperties": True})
]
"""A JSON object the contract leaves open (any object): checked to be an object."""


def _whole(value: object) -> object:
    return (
        int(value)
        if isinstance(value, float) and value.is_integer() and MIN_NUMBER <= value <= MAX_NUMBER
        else value
    )


WHOLE = BeforeValidator(_whole)
"""An integer field's reading of JSON as JSON Schema counts integers: `2.0` is 2 (`2.5` is
refused). Put after the field's bounds (`Annotated[int, Field(ge=0), WHOLE]`), so the bounds
stay in its schema."""


def _not_null(value: object) -> object:
    if value is None:
        raise ValueError("may be left out, but not null")
    return value


def _null_dropped(schema: JsonDict) -> None:
    """The field's schema without its `null` branch (nor the `null` default)."""
    branches = schema.pop("anyOf", None)
    if isinstance(branches, list):
        kept = [branch for branch in branches if branch != {"type": "null"}]
        if len(kept) == 1 and isinstance(kept[0], dict):
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    if schema.get("default", 0) is None:
        del schema["default"]


Omittable = Annotated[T | None, BeforeValidator(_not_null), Field(json_schema_extra=_null_dropped)]
"""An optional field the contract types without `null`: left out it is None, sent as
`null` it is refused (400), as a deployed runtime refuses it."""


def exactly_one(*names: str) -> JsonDict:
    """A model's JSON Schema rule: one of these fields is given and not null, the others
    absent or null."""
    return {
        "oneOf": [
            {**given(name), "properties": {
                other: {"not": {"type": "null"}} if other == name else {"type": "null"}
                for other in names}}
            for name in names
        ]
    }  # fmt: skip


def given(name: str) -> JsonDict:
    """A JSON Schema rule: the field is present and not null."""
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


def issue_path(location: tuple[int | str, ...]) -> str:
    """A validation error's location as a JSON-pointer-like path (`items/0/rank`)."""
    return "/".join(str(part) for part in location)


def parse(
    model: type[M], data: object, *, where: str = "", strict: bool = False, raw: bytes = b""
) -> M:
    """Validate `data` as `model`; 400 `validation-failed` naming the first bad field.

    `strict` validates JSON data as JSON types: no `false` for a number, no `0` for a boolean;
    `raw` is the JSON text `data` was read from, when there is one (validated as it is, not
    written out again).
    """
    try:
        if strict:
            return model.model_validate_json(raw or json.dumps(data), strict=True)
        return model.model_validate(data)
    except ValidationError as error:
        issues = [
            {
                "path": "/".join(p for p in (where, issue_path(in_data(data, e["loc"]))) if p),
                "message": _reason(e),
            }
            for e in error.errors()
        ]
        first = issues[0]
        raise ValidationFailed(first["path"], first["message"], issues=issues) from None


def in_data(data: object, location: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """An error's location with the steps that name no place in `data` left out: a tagged
    union's member (`prompt` in `prompt/content/template`) is the model's, not the body's."""
    kept: list[int | str] = []
    here = data
    for number, part in enumerate(location):
        found, inside = _inside(here, part)
        if found:
            here = inside
        elif number < len(location) - 1:
            continue
        kept.append(part)
    return tuple(kept)


def _inside(value: object, part: int | str) -> tuple[bool, object]:
    """Whether `value` has a place `part` (a list's index, an object's key), and its value."""
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return True, value[part]
    if isinstance(value, dict) and part in value:
        return True, value[part]
    return False, None


def _reason(error: ErrorDetails) -> str:
    """A short reason for one pydantic error, in the spec's plain words."""
    kind = error["type"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known field"
    return str(error["msg"]).removeprefix("Value error, ")


def parse_body(model: type[M], raw: bytes) -> M:
    """A JSON request body as `model`, read as every write is: `limits.load` (depth,
    constants, numbers), an object, then `parse` with JSON's types (strict). The API's
    endpoints and the console's forms both come through here, so neither stores what the
    other would refuse."""
    data = limits.load(raw)
    if not isinstance(data, dict):
        raise BadInput("The body must be a JSON object.")
    return parse(model, data, strict=True, raw=raw)
