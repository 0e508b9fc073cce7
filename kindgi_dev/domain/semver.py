"""Semantic versions (semver 2.0): checking them and ordering versions lowest first."""

from __future__ import annotations

import re

_NUMBER = r"0|[1-9]\d*"
_IDENT = r"(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(
    rf"(?P<major>{_NUMBER})\.(?P<minor>{_NUMBER})\.(?P<patch>{_NUMBER})"
    rf"(?:-(?P<pre>{_IDENT}(?:\.{_IDENT})*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)

Version = tuple[int, int, int, tuple[str, ...]]
_Ident = tuple[int, int, str]


def parse(version: str) -> Version:
    """(major, minor, patch, prerelease identifiers); ValueError when not a semver.

    Build metadata (`+…`) is accepted and dropped: it plays no part in order.
    """
    match = _SEMVER.fullmatch(version)
    if match is None:
        raise ValueError(f"{version!r} is not a semantic version such as 1.2.3 or 1.2.3-rc.1")
    pre = match["pre"]
    return (
        int(match["major"]),
        int(match["minor"]),
        int(match["patch"]),
        tuple(pre.split(".")) if pre else (),
    )


def is_semver(version: str) -> bool:
    """Whether `version` is a semantic version."""
    return _SEMVER.fullmatch(version) is not None


def sort_key(version: str) -> tuple[int, int, int, int, tuple[_Ident, ...]]:
    """A key that orders versions as semver does: a prerelease before its release."""
    major, minor, patch, pre = parse(version)
    return (major, minor, patch, 0 if pre else 1, tuple(_ident_key(ident) for ident in pre))


def _ident_key(ident: str) -> _Ident:
    """Numeric identifiers by value, before alphanumeric ones in ASCII order."""
    if ident.isdigit():
        return (0, int(ident), "")
    return (1, 0, ident)
