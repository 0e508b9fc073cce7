"""Base models of the wire: camelCase names, closed request bodies, reasons per field."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from ..domain.errors import BadInput, ValidationFailed

M = TypeVar("M", bound=BaseModel)


class WireModel(BaseModel):
    """A body or answer on the wire: camelCase aliases, unknown fields refused."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def wire(self) -> dict[str, Any]:
        """The model as JSON-ready camelCase data, absent optional fields left out."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class OpenModel(WireModel):
    """An answer model whose extra fields pass (for shapes the contract leaves open)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


def issue_path(location: tuple[int | str, ...]) -> str:
    """A validation error's location as a JSON-pointer-like path (`items/0/rank`)."""
    return "/".join(str(part) for part in location)


def parse(model: type[M], data: Any, *, where: str = "") -> M:
    """Validate `data` as `model`; 400 `validation-failed` naming the first bad field."""
    try:
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


def require_object(data: Any) -> dict[str, Any]:
    """A JSON body must be an object."""
    if not isinstance(data, dict):
        raise BadInput("The body must be a JSON object.")
    return data
