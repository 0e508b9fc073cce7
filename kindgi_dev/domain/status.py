"""The statuses a run or an eval run ends in: once in one of them, it changes no more."""

from __future__ import annotations

TERMINAL = frozenset({"completed", "failed", "cancelled"})
