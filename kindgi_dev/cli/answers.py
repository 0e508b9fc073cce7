"""Narrowing the API's JSON answers to the shapes a command reads from them."""

from __future__ import annotations

from ..domain.json import JSON, JSONObject
from .http import ApiError


def an_object(value: JSON) -> JSONObject:
    """An answer (or part of one) that must be a JSON object: `ApiError` when it isn't, as
    the server's contract promises an object there."""
    if not isinstance(value, dict):
        raise ApiError("server", f"an answer that isn't a JSON object: {str(value)[:80]}", 0)
    return value


def member(value: JSON, key: str) -> JSONObject:
    """The object at `key` of an object, or `{}` when either is missing or no object."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def objects(value: JSON) -> list[JSONObject]:
    """The objects of a JSON list (a page's `data`); `[]` for anything else."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
