"""The pack service's JSON log lines, shown on kindgi dev's stderr as `[pack] …` lines."""

from __future__ import annotations

import json

LEVELS = ("trace", "debug", "info", "warn", "error")
_QUIET_EVENTS = {"listening", "draining", "stopped"}
"""Lifecycle records kindgi dev reports in its own words, so they are not forwarded."""
_HIDDEN_KEYS = {
    *("time", "level", "severity", "subsystem", "message", "event", "kind", "inMessage"),
    *("packId", "artifactVersion", "tenantId", "toolId", "checkId"),
}


def readable(line: str, min_level: str = "info") -> str | None:
    """A child's stderr line as `[pack] HH:MM:SS.mmm LEVEL message k=v`; None to drop it."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict) or "message" not in record:
        return f"[pack] {line}" if line.strip() else None
    level = str(record.get("level", "info")).lower()
    if record.get("event") in _QUIET_EVENTS and level == "info":
        return None
    if level in LEVELS and LEVELS.index(level) < LEVELS.index(min_level):
        return None
    hidden = _HIDDEN_KEYS | set(record.get("inMessage") or [])
    extras = " ".join(
        f"{key}={value if isinstance(value, str) else json.dumps(value)}"
        for key, value in record.items()
        if key not in hidden
    )
    moment = str(record.get("time", ""))[11:23]
    return " ".join(p for p in ("[pack]", moment, level.upper(), record["message"], extras) if p)
