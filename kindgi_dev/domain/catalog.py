"""The kinds of thing a pack registers in the catalog."""

from __future__ import annotations

from typing import Literal

Kind = Literal["agent", "tool", "flow"]
