"""Times on the wire: UTC ISO-8601 with milliseconds and `Z`."""

from __future__ import annotations

from datetime import UTC, datetime


def format_time(moment: datetime) -> str:
    """`2026-01-01T00:00:00.000Z` for any aware or naive-UTC datetime."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: str) -> datetime:
    """The aware datetime of an ISO-8601 string with a zone (`Z` allowed); ValueError otherwise."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("a time needs a zone, such as Z")
    return moment.astimezone(UTC)


def now_iso() -> str:
    """The current time in wire form."""
    return format_time(datetime.now(UTC))
