"""Wire times keep four digits of year: a year before 1000 (`0067-…`) reads back as written."""

from __future__ import annotations

from kindgi_dev.domain.time import format_time, parse_time


def test_an_early_year_keeps_its_four_digits_and_reads_back() -> None:
    shown = format_time(parse_time("0067-08-15T16:33:01.9+10:21"))
    assert shown == "0067-08-15T06:12:01.900Z"
    assert format_time(parse_time(shown)) == shown
    assert format_time(parse_time("2026-12-02T00:45:15.817Z")) == "2026-12-02T00:45:15.817Z"
