"""Ids kept in 16 bytes: a UUID written as text takes 36.

A column of packed ids holds a canonical UUID (lowercase, hyphenated, as `uuid4` writes
it) as its bytes, and any other id as its text, so every id reads back as it was given.
Bytes sort as the canonical text does, so an order by a packed id is the order by its text.
"""

from __future__ import annotations

import re

_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A UUID as `str(uuid.UUID(…))` spells it: matched without building one (a batch packs
three ids a correction)."""


def packed(text: str) -> bytes | str:
    """A canonical UUID's 16 bytes; any other id unchanged."""
    if isinstance(text, str) and _CANONICAL.fullmatch(text):
        return bytes.fromhex(text.replace("-", ""))
    return text


def unpacked(value: bytes | str) -> str:
    """The id a packed value stands for (spelled as `str(uuid.UUID(bytes=value))` does,
    without building a UUID: lists unpack one per row)."""
    if not isinstance(value, bytes):
        return value
    h = value.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
