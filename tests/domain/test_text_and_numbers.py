"""Whole numbers, blank text and times as people write them: what `numbers`, `text` and
`time` read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kindgi_dev.domain.ids import is_uuid
from kindgi_dev.domain.numbers import MAX_INT, whole_number
from kindgi_dev.domain.semver import is_release, is_semver
from kindgi_dev.domain.text import is_blank
from kindgi_dev.domain.time import format_time, parse_time


@pytest.mark.parametrize(
    ("text", "most", "read"),
    [
        ("0", MAX_INT, 0),
        ("42", MAX_INT, 42),
        ("007", MAX_INT, 7),
        (str(MAX_INT), MAX_INT, MAX_INT),
        (str(MAX_INT + 1), MAX_INT, None),
        ("9" * 5000, MAX_INT, None),
        ("²", MAX_INT, None),
        ("٣", MAX_INT, None),
        ("-1", MAX_INT, None),
        ("+1", MAX_INT, None),
        (" 1", MAX_INT, None),
        ("1e3", MAX_INT, None),
        ("", MAX_INT, None),
        ("10", 10, 10),
        ("11", 10, None),
        ("0", -1, None),
    ],
)
def test_a_whole_number_is_ascii_digits_up_to_the_most(
    text: str, most: int, read: int | None
) -> None:
    assert whole_number(text, most=most) == read


def test_blank_is_ascii_whitespace_only() -> None:
    assert is_blank("") and is_blank(" \t\n\r\f\v")
    assert not is_blank(" a ")
    assert not is_blank("\x1c"), "str.strip() would take it, a JSON Schema regex wouldn't"


def test_versions_and_uuids_are_ascii() -> None:
    assert is_semver("1.2.3-rc.1+build.5") and not is_semver("1.0.٣") and not is_semver("01.0.0")
    assert is_release("01.0.0") and not is_release("1.0.٣") and not is_release("1.0.0-rc.1")
    assert is_uuid("00000000-0000-4000-8000-000000000000")
    assert not is_uuid("00000000000040008000000000000000") and not is_uuid("nope")


def test_a_time_before_the_year_1000_is_written_with_four_digits_and_reads_back() -> None:
    early = datetime(535, 1, 20, 21, 14, 45, 800_000, tzinfo=UTC)
    assert format_time(early) == "0535-01-20T21:14:45.800Z"
    assert parse_time(format_time(early)) == early
    with pytest.raises(ValueError, match="out of range"):
        parse_time("0001-01-01T00:00:00+01:00")
