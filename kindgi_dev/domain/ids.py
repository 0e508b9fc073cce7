"""Ids the contract types as UUIDs, spelled as they are on the wire."""

from __future__ import annotations

import re

UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
"""A UUID in its hyphenated hex form, as a JSON Schema `pattern` (its `uuid` format)."""
_UUID = re.compile(UUID_PATTERN[1:-1])


def is_uuid(text: str) -> bool:
    """Whether `text` is a UUID spelled as `UUID_PATTERN` says."""
    return _UUID.fullmatch(text) is not None
