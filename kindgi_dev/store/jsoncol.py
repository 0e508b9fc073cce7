"""JSON columns: compact text in, Python values out."""

from __future__ import annotations

import json
from typing import Any


def dump(value: Any) -> str | None:
    """Compact JSON text, or NULL for None."""
    return None if value is None else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def load(text: str | bytes | None) -> Any:
    """The value of a JSON column (None for NULL)."""
    return None if text is None else json.loads(text)
