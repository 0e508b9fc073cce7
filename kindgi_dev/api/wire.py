"""Base models of the wire: camelCase names, closed request bodies, reasons per field."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic.json_schema import WithJsonSchema

from ..domain.errors import BadInput, ValidationFailed
from ..domain.time import format_time, parse_time
from . import limits

M = TypeVar("M", bound=BaseModel)

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
        return format_time(parse_time(text))
    except ValueError:
        raise ValueError("is not a date-time with a zone, such as 2026-01-01T00:00:00Z") from None


WireTime = Annotated[str, AfterValidator(_wire_time)]
"""A date-time filter: refused unless ISO-8601 with a zone, then in the stored form."""


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


def issue_path(location: tuple[int | str, ...]) -> str:
    """A validation error's location as a JSON-pointer-like path (`items/0/rank`)."""
    return "/".join(str(part) for part in location)


def parse(model: type[M], data: Any, *, where: str = "", strict: bool = False) -> M:
    """Validate `data` as `model`; 400 `validation-failed` naming the first bad field.

    `strict` validates JSON data as JSON types: no `false` for a number, no `0` for a boolean.
    """
    try:
        if strict:
            return model.model_validate_json(json.dumps(data), strict=True)
        return model.model_validate(data)
    except ValidationError as error:
        issues = [
            {
                "path": "/".join(p for p in (where, issue_path(e["loc"])) if p),
                "message": _reason(e),
            }
            for e in error.errors()
        ]
        first = issues[0]
        raise ValidationFailed(first["path"], first["message"], issues=issues) from None


def _reason(error: Any) -> str:
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
    return parse(model, require_object(limits.load(raw)), strict=True)


def require_object(data: Any) -> dict[str, Any]:
    """A JSON body must be an object."""
    if not isinstance(data, dict):
        raise BadInput("The body must be a JSON object.")
    return data
