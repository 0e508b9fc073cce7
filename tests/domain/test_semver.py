"""Semantic versions: parsing and their order."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.semver import is_semver, parse, sort_key


def test_parse() -> None:
    assert parse("0.2.0") == (0, 2, 0, ())
    assert parse("1.10.3-rc.1") == (1, 10, 3, ("rc", "1"))
    assert parse("1.0.0+build.7") == (1, 0, 0, ())


@pytest.mark.parametrize("text", ["1.2", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3 ", ""])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)
    assert not is_semver(text)


def test_is_semver() -> None:
    assert is_semver("0.1.0")
    assert is_semver("2.0.0-alpha-1.x")


def test_order_follows_semver() -> None:
    versions = [
        "1.0.0",
        "0.10.0",
        "1.0.0-rc.1",
        "1.0.0-alpha.beta",
        "0.2.0",
        "1.0.0-alpha",
        "1.0.0-beta.11",
        "1.0.0-alpha.1",
        "1.0.0-beta.2",
        "1.0.0-beta",
    ]
    assert sorted(versions, key=sort_key) == [
        "0.2.0",
        "0.10.0",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]
