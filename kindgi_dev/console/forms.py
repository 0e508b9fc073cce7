"""How a console form becomes a write: its fields as the JSON body an API client would send,
read by the API's own body reader (`wire.parse_body`), so a form stores nothing the API
would refuse; and what a refusal says beside the field it names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from ..api import limits
from ..api.wire import parse_body
from ..domain.errors import BadInput, KindgiError
from ..domain.json import JSON, JSONObject
from ..services.context import Context

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
"""A JSON number, in ASCII digits only (`²` is a digit to Python, not to JSON)."""


def written(ctx: Context, write: Callable[[], T]) -> T:
    """A form's write as the API handles one: what it reads to check and what it writes, in
    one write transaction; so a change committed meanwhile (an erasure of the run) is seen
    by the checks or comes after the write, never between them."""
    with ctx.db.transaction():
        return write()


def at(error: BadInput, field: str) -> BadInput:
    """The same refusal, naming the form's `field`."""
    return BadInput(error.message, code=error.wire_code, **{**error.details, "field": field})


def json_text(text: str, field: str) -> JSON:
    """A field holding JSON (a tool call's arguments) as its value, read as the API reads a
    body's JSON: its depth, no `NaN` or `Infinity`, numbers in range. `field` is its place in
    the body: a refused number is named within it, any other refusal names it."""
    try:
        loaded: JSON = limits.load(text.encode(), at=field)
        return loaded
    except BadInput as error:
        raise error if error.details.get("field") else at(error, field) from None


def number_text(text: str) -> JSON:
    """A number field's text as a JSON body would carry it: a JSON number as the number it
    says, any other text as it is, for the body's model to refuse where it wants a number."""
    if not _NUMBER.fullmatch(text):
        return text
    try:
        number: JSON = json.loads(text)
        return number
    except ValueError:  # an integer of more digits than Python reads: not a number here
        return text


def present(**fields: JSON) -> JSONObject:
    """A body's object with the fields left empty (None) left out, as a client leaves them."""
    return {name: value for name, value in fields.items() if value is not None}


def body_of(model: type[M], data: JSONObject, *, written: str | None = None) -> M:
    """`data` as the endpoint's body, checked as the API checks one: numbers first (so an
    infinite one is named, not written as `Infinity`), then the body's bytes through the
    API's reader and its model.

    A refusal of the body as a whole (too deep, or a string its strict reader refuses) can
    only come from what the person wrote as JSON, the field `written`: it names that field.
    """
    try:
        limits.check_numbers(data)
        return parse_body(model, json.dumps(data).encode())
    except BadInput as error:
        if written is not None and not error.details.get("field"):
            raise at(error, written) from None
        raise


def reason_of(error: KindgiError, under: str | None = None) -> str:
    """What a refusal says beside the form's field at `under` in the body (by default the
    place the refusal names): its message without that place (or `<body>`, the whole body's
    name) in front."""
    where = under or str(error.details.get("field") or "")
    places = (f"{where}: ", f"{where}/") if where else ()
    for lead in (*places, "<body>: "):
        if error.message.startswith(lead):
            return error.message[len(lead) :]
    return error.message
