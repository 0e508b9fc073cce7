"""The replay policy: what a replayed tool call gets, so a replay does nothing the past run didn't.

A pure function of the tool's facts, the call, the past run's calls, `reads`, strictness
and whether the candidate pins other settings blocks. "The same call" is the same tool id
with equal arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kindgi_dev.domain.items import same_value
from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.domain.narrow import objects_of, texts_of

REFUSED_CHANGES = "replay: this call changes things and has no recorded result"
REFUSED_APPROVAL = "replay: this call needs an approval and has no recorded result"
REFUSED_OUTSIDE = "replay: this call reaches outside and has no recorded result"
REFUSED_STRICT_READ = "replay: this read has no recorded result"
DRY_RUN_CHANGES = "dry run: this call changes things, so it was not carried out"
DRY_RUN_APPROVAL = "dry run: this call needs an approval, so it was not carried out"
DRY_RUN_OUTSIDE = "dry run: this call reaches outside, so it was not carried out"
LIVE_NOT_RECORDED = "replay: the past run made no such call, so this read ran live"
LIVE_SETTINGS = "replay: the version pins other settings blocks, so this read ran live"
LIVE_READS = "replay: reads run live"

CHANGING_EFFECTS = frozenset(
    {"writes", "deletes", "external-side-effect", "spawns-run", "emits-event"}
)
OUTSIDE_EFFECTS = frozenset({"network", "sensitive-data-egress"})

Source = Literal["recorded", "live", "refused"]
Reads = Literal["recorded", "live"]


@dataclass(frozen=True)
class ToolFacts:
    """What the replay policy needs to know about a tool, from its manifest."""

    tool_id: str
    mutating: bool | None
    needs_approval: bool
    effects: frozenset[str]

    @classmethod
    def from_manifest(cls, manifest: JSONObject) -> ToolFacts:
        """Read `id`, `mutating` (absent: may write), `needsApprovalWhenUnattended`, effects."""
        mutating = manifest.get("mutating")
        return cls(
            tool_id=str(manifest["id"]),
            mutating=mutating if isinstance(mutating, bool) else None,
            needs_approval=manifest.get("needsApprovalWhenUnattended") is True,
            effects=frozenset(
                texts_of([effect.get("kind") for effect in objects_of(manifest.get("effects"))])
            ),
        )

    @property
    def read_only(self) -> bool:
        """`mutating: false`, no approval to ask for, and no effect that changes things."""
        return (
            self.mutating is False
            and not self.needs_approval
            and not (self.effects & CHANGING_EFFECTS)
        )

    @property
    def reaches_outside(self) -> bool:
        """Whether the tool has a `network` or `sensitive-data-egress` effect."""
        return bool(self.effects & OUTSIDE_EFFECTS)


@dataclass(frozen=True)
class RecordedCall:
    """One tool call of the past run, with its result or error."""

    tool_id: str
    arguments: JSON
    result: JSON = None
    error: str | None = None
    approval: JSONObject | None = None
    """The reviewer's decision the past call ran on, when it waited for one."""


@dataclass(frozen=True)
class ReplayDecision:
    """What a replayed call gets: `recorded` is set only when it gets the past run's result.

    `reason` is the message the model is told when refused, or why the call ran live.
    """

    source: Source
    recorded: RecordedCall | None
    reason: str | None
    diverged: bool
    approval_skipped: bool = False


def find_recorded(
    tool_id: str,
    arguments: JSON,
    recorded_calls: Sequence[RecordedCall],
    used: frozenset[int],
    *,
    reuse: bool,
) -> int | None:
    """The index of the first unused recorded same call; with `reuse`, else the last used one."""
    same = [
        index
        for index, call in enumerate(recorded_calls)
        if call.tool_id == tool_id and same_value(call.arguments, arguments)
    ]
    unused = [index for index in same if index not in used]
    if unused:
        return unused[0]
    return same[-1] if reuse and same else None


def decide(
    tool: ToolFacts,
    arguments: JSON,
    recorded_calls: Sequence[RecordedCall],
    *,
    used: frozenset[int],
    reads: Reads,
    strict: bool,
    settings_differ: bool,
) -> tuple[ReplayDecision, int | None]:
    """The decision for one call, and the index of the recorded call it consumed.

    Each recorded call serves one replayed call, in order; a read made more often than
    the past run made it gets the last recorded result again.
    """
    index = find_recorded(tool.tool_id, arguments, recorded_calls, used, reuse=tool.read_only)
    recorded = None if index is None else recorded_calls[index]
    if strict or not tool.read_only or tool.reaches_outside:
        if recorded is not None:
            return _recorded(recorded), index
        return _refused(tool, strict=strict), None
    if settings_differ:
        return ReplayDecision("live", None, LIVE_SETTINGS, diverged=True), index
    if reads == "live":
        reason = LIVE_READS if recorded is not None else LIVE_NOT_RECORDED
        return ReplayDecision("live", None, reason, diverged=recorded is None), index
    if recorded is not None:
        return _recorded(recorded), index
    return ReplayDecision("live", None, LIVE_NOT_RECORDED, diverged=True), None


def _recorded(call: RecordedCall) -> ReplayDecision:
    """The past run's result for the same call."""
    return ReplayDecision("recorded", call, None, diverged=False)


def _refused(tool: ToolFacts, *, strict: bool) -> ReplayDecision:
    """A refusal with the message that says why the call did not run."""
    if tool.read_only:
        reason = REFUSED_STRICT_READ if strict else REFUSED_OUTSIDE
        return ReplayDecision("refused", None, reason, diverged=False)
    if tool.needs_approval:
        return ReplayDecision("refused", None, REFUSED_APPROVAL, False, approval_skipped=True)
    return ReplayDecision("refused", None, REFUSED_CHANGES, diverged=False)


def dry_run_refusal(tool: ToolFacts) -> str | None:
    """Why a dry run doesn't carry a call out, or None for a read-only tool that stays in."""
    if tool.read_only:
        return DRY_RUN_OUTSIDE if tool.reaches_outside else None
    if tool.needs_approval:
        return DRY_RUN_APPROVAL
    return DRY_RUN_CHANGES
