"""What an eval run compares its candidate with, as a start request names it: the recorded
runs (`"recorded"`), another version (`{agentId, version}`; a flow's `{flowId, version}`), or
the version live in a scope (`{live: {projectId?, segments?}}`).

The field names follow the wire's, so a run's settings read back in the shape it was started
with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .segments import Segment

RECORDED: Literal["recorded"] = "recorded"


@dataclass(frozen=True)
class VersionAsked:
    """Another version to replay beside the candidate, named by its agent's or flow's id."""

    version: str
    agent_id: str | None = None
    flow_id: str | None = None

    @property
    def subject_id(self) -> str:
        """The id it names: a flow's given as `flowId`, or as `agentId` (the real CLI's
        `--baseline=<id>@<version>` spells both that way)."""
        return self.flow_id or self.agent_id or ""


@dataclass(frozen=True)
class BaselineScope:
    """Where a live baseline's version is looked up: a project, a segment path in it, or
    (neither) the whole tenant. A release's `live.LiveScope` can also name an org, which a
    baseline can't; summaries already stored hold these two fields, so it stays its own."""

    project_id: str | None = None
    segments: tuple[Segment, ...] | None = None


@dataclass(frozen=True)
class LiveAsked:
    """The version live in a scope, replayed beside the candidate."""

    live: BaselineScope


AskedBaseline = Literal["recorded"] | VersionAsked | LiveAsked
"""A start request's `baseline`."""
