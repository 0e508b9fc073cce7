"""Settings pins: which block version a range picks, and when a candidate's pins differ."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.blocks import Block, pin, satisfies, settings_differ


@pytest.mark.parametrize(
    ("version", "wanted", "fits"),
    [
        ("1.4.2", "^1.0.0", True), ("2.0.0", "^1.0.0", False), ("0.2.9", "^0.2.1", True),
        ("0.3.0", "^0.2.1", False), ("1.2.9", "~1.2.0", True), ("1.3.0", "~1.2.0", False),
        ("1.9.0", "1.x", True), ("2.0.0", "1", False), ("1.0.0", "1.0.0", True),
        ("1.0.1", "1.0.0", False), ("1.1.0-rc.1", "^1.0.0", False),
        ("1.1.0-rc.1", "1.1.0-rc.1", True), ("7.0.0", ">=1.0.0", True),
        ("0.9.0", ">=1.0.0", False), ("3.1.0", "*", True),
    ],
)  # fmt: skip
def test_a_range_takes_the_versions_it_names(version: str, wanted: str, fits: bool) -> None:
    assert satisfies(version, wanted) is fits


def test_what_is_not_a_range_takes_nothing() -> None:
    assert not satisfies("1.0.0", "^one") and not satisfies("1.0.0", "1.0.0.0")


def block(version: str, kind: str = "settings", gone: bool = False) -> Block:
    gone_at = "2026-01-01T00:00:00.000Z" if gone else None
    return Block("w", version, kind, {"values": {}}, "p", "t", unregistered_at=gone_at)


def test_a_pin_is_the_highest_active_version_in_range() -> None:
    versions = [block("1.0.0"), block("1.2.0"), block("1.3.0", gone=True), block("2.0.0")]
    assert pin([{"id": "w", "version": "^1.0.0"}], versions) == {"w": "1.2.0"}
    assert pin([{"id": "w", "version": "^3.0.0"}], versions) == {}
    assert pin([{"id": "w", "version": "*"}], [block("1.0.0", kind="prompt")]) == {}


def test_pins_differ_by_versions_when_recorded_else_by_ranges() -> None:
    refs = [{"id": "w", "version": "^1.0.0"}]
    assert settings_differ({"w": "1.1.0"}, {"w": "1.0.0"}, refs, refs) is True
    assert settings_differ({"w": "1.0.0"}, {"w": "1.0.0"}, refs, refs) is False
    assert settings_differ({"w": "1.0.0"}, None, refs, refs) is False
    assert settings_differ({"w": "1.0.0"}, None, refs, []) is True
