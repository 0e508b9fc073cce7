"""Data blocks: versioned prompts and settings that agent versions pin by semver range.

An agent names the settings blocks it reads (`settings: [{id, version: range}]`); each run
pins, for each, the highest active version in range, and its tools read those versions'
values as `ctx.settings[<id>]`. A replay compares the candidate's pins with the past run's:
pins that differ make read-only tools run live (`domain.replay`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import semver
from .json import JSONObject

KINDS = ("prompt", "settings")
_PARTIAL = re.compile(r"(0|[1-9]\d*)(?:\.(0|[1-9]\d*|x|\*))?(?:\.(0|[1-9]\d*|x|\*))?")


@dataclass(frozen=True)
class Block:
    """One version of a block, as published."""

    id: str
    version: str
    kind: str
    content: JSONObject
    project_id: str
    published_at: str
    description: str | None = None
    unregistered_at: str | None = None


def satisfies(version: str, wanted: str) -> bool:
    """Whether `version` is in the range `wanted`: an exact version, `^1.2.0`, `~1.2.0`,
    `1.x`, `1`, `*`, or `>=1.2.0`; a prerelease only when the range names it exactly."""
    if not semver.is_semver(version):
        return False
    wanted = wanted.strip()
    if wanted in ("*", "x", ""):
        return not semver.parse(version)[3]
    if semver.is_semver(wanted):
        return semver.sort_key(version) == semver.sort_key(wanted)
    major, minor, patch, pre = semver.parse(version)
    if pre:
        return False
    got = (major, minor, patch)
    for prefix in (">=", "^", "~"):
        if wanted.startswith(prefix):
            low = _lowest(wanted[len(prefix) :])
            if low is None or got < low:
                return False
            if prefix == "^":
                return _caret(low, (major, minor))
            return prefix == ">=" or (major, minor) == low[:2]
    match = _PARTIAL.fullmatch(wanted)
    if match is None:
        return False
    parts = [match[1], match[2], match[3]]
    given = [int(p) for p in parts if p is not None and p not in ("x", "*")]
    return [major, minor, patch][: len(given)] == given


def _lowest(text: str) -> tuple[int, int, int] | None:
    if not semver.is_semver(text):
        return None
    major, minor, patch, _ = semver.parse(text)
    return major, minor, patch


def _caret(low: tuple[int, int, int], got: tuple[int, int]) -> bool:
    """`^` keeps the left-most non-zero part: ^1.2.3 < 2.0.0, ^0.2.3 < 0.3.0."""
    if low[0] > 0:
        return got[0] == low[0]
    return got == (0, low[1]) if low[1] > 0 else got == (0, 0)


def pin(refs: Sequence[Mapping[str, object]], versions: Iterable[Block]) -> dict[str, str]:
    """Each ref's block id → the highest active settings version in its range (a ref nothing
    satisfies is left out)."""
    by_id: dict[str, list[Block]] = {}
    for block in versions:
        if block.kind == "settings" and block.unregistered_at is None:
            by_id.setdefault(block.id, []).append(block)
    pins = {}
    for ref in refs:
        block_id, wanted = str(ref.get("id", "")), str(ref.get("version", "*"))
        fits = [b.version for b in by_id.get(block_id, []) if satisfies(b.version, wanted)]
        if fits:
            pins[block_id] = max(fits, key=semver.sort_key)
    return pins


def settings_differ(
    candidate: Mapping[str, str] | None,
    past: Mapping[str, str] | None,
    candidate_refs: Sequence[object],
    past_refs: Sequence[object],
) -> bool:
    """Whether a candidate pins other settings than the past run: by the versions each run
    pinned when the past run recorded them, else by the ranges the two versions name."""
    if past is not None and candidate is not None:
        return dict(candidate) != dict(past)
    return list(candidate_refs) != list(past_refs)
