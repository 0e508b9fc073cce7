"""Times on the wire: UTC ISO-8601 with milliseconds and `Z`."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_RFC_3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def format_time(moment: datetime) -> str:
    """`2026-01-01T00:00:00.000Z` for any aware or naive-UTC datetime."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    # by hand, not strftime: its %Y writes the year 535 as "535", which no ISO reader takes,
    # and it costs several times this (every write stamps a time or three)
    m = moment
    return (f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:"
            f"{m.second:02d}.{m.microsecond // 1000:03d}Z")  # fmt: skip


def parse_time(text: str) -> datetime:
    """The aware datetime of an ISO-8601 string with a zone (`Z` allowed); ValueError otherwise."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError("a time needs a zone, such as Z")
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the year 1 in UTC
        raise ValueError(f"{text!r} is out of range in UTC") from None


def parse_given_time(text: str) -> datetime:
    """A time a request gives: RFC 3339's date-time (JSON Schema's `date-time` format, which
    the API's schemas name), as an aware datetime; ValueError for anything else."""
    if not _RFC_3339.fullmatch(text):
        raise ValueError(f"{text!r} is not an RFC 3339 date-time, such as 2026-01-01T00:00:00Z")
    return parse_time(text)


def now_iso() -> str:
    """The current time in wire form."""
    return format_time(datetime.now(UTC))
