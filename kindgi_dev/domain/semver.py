"""Semantic versions (semver 2.0): checking them and ordering versions lowest first."""

from __future__ import annotations

import re

_NUMBER = r"0|[1-9][0-9]*"
_IDENT = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_TEXT = (
    rf"({_NUMBER})\.({_NUMBER})\.({_NUMBER})"
    rf"(?:-({_IDENT}(?:\.{_IDENT})*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_RELEASE = r"[0-9]+\.[0-9]+\.[0-9]+"
_SEMVER = re.compile(_TEXT)
SEMVER_PATTERN = f"^{_TEXT}$"
"""The same rule as a JSON Schema `pattern` (ASCII digits only, as `\\d` would not be)."""
RELEASE_PATTERN = f"^{_RELEASE}$"
"""MAJOR.MINOR.PATCH alone, in ASCII digits, as the contract writes an eval suite's version
and a candidate's (`^\\d+\\.\\d+\\.\\d+$`: leading zeros are let through)."""

Version = tuple[int, int, int, tuple[str, ...]]
_Ident = tuple[int, int, str]


def parse(version: str) -> Version:
    """(major, minor, patch, prerelease identifiers); ValueError when not a semver.

    Build metadata (`+…`) is accepted and dropped: it plays no part in order.
    """
    match = _SEMVER.fullmatch(version)
    if match is None:
        raise ValueError(f"{version!r} is not a semantic version such as 1.2.3 or 1.2.3-rc.1")
    major, minor, patch, pre = match.groups()
    return (int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else ())


def is_semver(version: str) -> bool:
    """Whether `version` is a semantic version."""
    return _SEMVER.fullmatch(version) is not None


def is_release(version: str) -> bool:
    """Whether `version` is MAJOR.MINOR.PATCH (see `RELEASE_PATTERN`)."""
    return re.fullmatch(_RELEASE, version) is not None


def sort_key(version: str) -> tuple[int, int, int, int, tuple[_Ident, ...]]:
    """A key that orders versions as semver does: a prerelease before its release."""
    major, minor, patch, pre = parse(version)
    return (major, minor, patch, 0 if pre else 1, tuple(_ident_key(ident) for ident in pre))


def _ident_key(ident: str) -> _Ident:
    """Numeric identifiers by value, before alphanumeric ones in ASCII order."""
    if ident.isdigit():
        return (0, int(ident), "")
    return (1, 0, ident)
