"""JSON pointers (RFC 6901): how an item says where it sits in a run's output."""

from __future__ import annotations

import re
from collections.abc import Iterable

from kindgi_dev.domain.json import JSON

_BAD_TILDE = re.compile(r"~(?![01])")
POINTER_PATTERN = r"^(?:/(?:[^~/]|~[01])*)*$"
"""What `parse_pointer` takes, as a JSON Schema `pattern`: "" or "/"-led tokens, "~" only
as "~0" or "~1"."""
INDEX = re.compile(r"0|[1-9][0-9]*")
"""A list index as a pointer token spells it: no sign, no leading zero."""


def parse_pointer(text: str) -> list[str]:
    """The unescaped reference tokens of `text`; ValueError saying why it is not a pointer."""
    if text == "":
        return []
    if not text.startswith("/"):
        raise ValueError(f'a JSON pointer is "" or starts with "/", not {text!r}')
    if _BAD_TILDE.search(text):
        raise ValueError(f'in a JSON pointer "~" is only "~0" or "~1": {text!r}')
    return [token.replace("~1", "/").replace("~0", "~") for token in text[1:].split("/")]


def escape_token(token: str) -> str:
    """One reference token escaped for a pointer (`~` as `~0`, `/` as `~1`)."""
    return token.replace("~", "~0").replace("/", "~1")


def format_pointer(tokens: Iterable[str | int]) -> str:
    """The pointer text of a token path, the inverse of `parse_pointer`."""
    return "".join("/" + escape_token(str(token)) for token in tokens)


def child(pointer: str, token: str | int) -> str:
    """The pointer one step below `pointer`, through a key or a list index."""
    return pointer + "/" + escape_token(str(token))


def resolve(document: JSON, pointer: str) -> JSON:
    """The value `pointer` names in `document`; LookupError saying where it stops resolving."""
    current = document
    walked = ""
    for token in parse_pointer(pointer):
        current = _step(current, token, walked)
        walked = child(walked, token)
    return current


def _step(current: JSON, token: str, walked: str) -> JSON:
    """The value under one token, or LookupError naming the place it failed."""
    where = walked or "the document root"
    if isinstance(current, dict):
        if token not in current:
            raise LookupError(f"{where} has no key {token!r}")
        return current[token]
    if isinstance(current, list):
        if not INDEX.fullmatch(token):
            raise LookupError(f"{where} is a list: {token!r} is not a list index")
        index = int(token)
        if index >= len(current):
            raise LookupError(f"{where} has {len(current)} elements, no index {index}")
        return current[index]
    raise LookupError(f"{where} is neither an object nor a list")
