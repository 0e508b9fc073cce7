"""A project's failed runs in a window, grouped by cause, subject and version (`runs.failures`).

Counts come from every failed run of the window, never from a page. A failure whose code is
a person's decision (`hitl-*`: an approval rejected, cancelled or timed out) is an outcome,
apart from the errors; a run that failed with no recorded code is `unrecorded`, grouped by
subject and version only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import ValidationFailed

GROUP_KEYS = ("code", "version")
"""What `groupBy` may name (comma-separated); both by default."""
OUTCOME_PREFIX = "hitl-"


@dataclass(frozen=True)
class FailedRun:
    """One failed run as the grouping needs it."""

    run_id: str
    subject_kind: str
    subject_id: str
    version: str | None
    code: str | None
    failed_at: str


@dataclass(frozen=True)
class FailureSubject:
    """Whose runs a group counts: an agent's turns or a flow's runs."""

    kind: str
    id: str


@dataclass(frozen=True)
class FailureGroup:
    """Failed runs with the same cause, subject and version: how many, when, the latest."""

    subject: FailureSubject
    count: int
    first_seen: str
    last_seen: str
    example_run_id: str
    code: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class FailureGroups:
    """The window's failures, the people's decisions and the unrecorded ones, with the total."""

    from_: str
    to: str
    groups: list[FailureGroup]
    outcomes: list[FailureGroup]
    unrecorded: list[FailureGroup]
    total: int


def group_keys(group_by: str | None) -> tuple[str, ...]:
    """The keys a `groupBy` value names; 400 for one that isn't `code` or `version`."""
    if group_by is None:
        return GROUP_KEYS
    keys = tuple(part.strip() for part in group_by.split(",") if part.strip())
    unknown = [key for key in keys if key not in GROUP_KEYS]
    if unknown or not keys:
        raise ValidationFailed("groupBy", "is a comma-separated list of code and version")
    return keys


def group_failures(
    runs: Iterable[FailedRun],
    *,
    start: str,
    end: str,
    keys: Sequence[str] = GROUP_KEYS,
    limit: int = 25,
) -> FailureGroups:
    """Group `runs` (each failed in [start, end]), the largest groups first in each list."""
    buckets: dict[tuple[str, tuple[str, str, str | None, str | None]], list[FailedRun]] = {}
    total = 0
    for run in runs:
        total += 1
        key: tuple[str, str, str | None, str | None]
        if run.code is None:
            where, key = "unrecorded", (run.subject_kind, run.subject_id, run.version, None)
        else:
            where = "outcomes" if run.code.startswith(OUTCOME_PREFIX) else "groups"
            key = (
                run.subject_kind,
                run.subject_id,
                run.version if "version" in keys else None,
                run.code if "code" in keys else None,
            )
        buckets.setdefault((where, key), []).append(run)
    lists: dict[str, list[FailureGroup]] = {"groups": [], "outcomes": [], "unrecorded": []}
    for (where, (kind, subject_id, version, code)), members in buckets.items():
        times = sorted(members, key=lambda r: (r.failed_at, r.run_id))
        lists[where].append(
            FailureGroup(
                subject=FailureSubject(kind, subject_id),
                count=len(members),
                first_seen=times[0].failed_at,
                last_seen=times[-1].failed_at,
                example_run_id=times[-1].run_id,
                code=code,
                version=version,
            )
        )
    for found in lists.values():
        found.sort(key=lambda g: (-g.count, _descending(g.last_seen), g.example_run_id))
        del found[limit:]
    return FailureGroups(start, end, lists["groups"], lists["outcomes"], lists["unrecorded"], total)


def _descending(text: str) -> tuple[int, ...]:
    """A key that sorts wire times newest first."""
    return tuple(-ord(char) for char in text)
