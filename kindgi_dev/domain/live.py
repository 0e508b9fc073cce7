"""Live scopes: where a version is pinned live (tenant, org, project, segment path), which
scopes cover a run, and which of several covering scopes is the most specific.

A run takes the most specific pin that covers it; a promotion is checked against the most
specific gate policy that covers its scope. Both use `most_specific`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .segments import Segment

T = TypeVar("T")

KINDS = ("tenant", "org", "project", "segment")


@dataclass(frozen=True)
class LiveScope:
    """One scope: the whole tenant, an org, a project, or a segment path in a project."""

    kind: str
    project_id: str | None = None
    org_id: str | None = None
    path: tuple[Segment, ...] | None = None

    @property
    def key(self) -> str:
        """A text that is equal for equal scopes (how the store tells one scope's pin)."""
        if self.kind == "org":
            return f"org:{self.org_id}"
        if self.kind == "project":
            return f"project:{self.project_id}"
        if self.kind == "segment":
            steps = "/".join(f"{s.key}={s.value}" for s in self.path or ())
            return f"segment:{self.project_id}:{steps}"
        return "tenant"

    @property
    def rank(self) -> int:
        """How specific it is: tenant 0, org 1, project 2, a segment path 3 plus its length."""
        if self.kind == "segment":
            return 3 + len(self.path or ())
        return KINDS.index(self.kind)

    def covers(self, project_id: str | None, segments: Sequence[Segment] = ()) -> bool:
        """Whether a run in `project_id` at segment path `segments` falls in this scope (kindgi
        dev has no orgs, so an org scope covers no project)."""
        if self.kind == "tenant":
            return True
        if self.kind == "project":
            return project_id is not None and project_id == self.project_id
        if self.kind == "segment":
            path = tuple(self.path or ())
            return project_id == self.project_id and tuple(segments[: len(path)]) == path
        return False

    def contains(self, other: LiveScope) -> bool:
        """Whether every run `other` covers is covered here too (a scope contains itself)."""
        if other.kind == "tenant":
            return self.kind == "tenant"
        if other.kind == "org":
            return self.kind == "tenant" or self.key == other.key
        return self.covers(other.project_id, other.path or ())

    def describe(self) -> str:
        """The scope in words: `the tenant`, `project <id>`, `project <id> company=acme`."""
        if self.kind == "tenant":
            return "the tenant"
        if self.kind == "org":
            return f"org {self.org_id}"
        if self.kind == "project":
            return f"project {self.project_id}"
        steps = "/".join(f"{s.key}={s.value}" for s in self.path or ())
        return f"project {self.project_id} {steps}"


def most_specific(
    entries: Iterable[tuple[LiveScope, T]],
    project_id: str | None,
    segments: Sequence[Segment] = (),
) -> tuple[LiveScope, T] | None:
    """Of the entries whose scope covers the run, the one with the most specific scope."""
    covering = [(scope, value) for scope, value in entries if scope.covers(project_id, segments)]
    if not covering:
        return None
    return max(covering, key=lambda entry: entry[0].rank)


def within(entries: Iterable[tuple[LiveScope, T]], scope: LiveScope) -> tuple[LiveScope, T] | None:
    """Of the entries whose scope contains `scope`, the most specific: what a run anywhere in
    `scope` would fall back on (for a segment path: its longer prefixes first)."""
    containing = [(s, value) for s, value in entries if s.contains(scope)]
    if not containing:
        return None
    return max(containing, key=lambda entry: entry[0].rank)
