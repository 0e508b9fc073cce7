"""The stored cases a replay starts from, as typed records: a run's copy, a suite case,
a frozen 0.4 case. `store.case_json` reads and writes them, so the replay code works on
fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from .expectations import Answer, Decisions, ExpectedCall
from .json import JSON, JSONObject
from .replay import RecordedCall
from .test_sets import TestCase


@dataclass(frozen=True)
class CopiedCall:
    """One tool call of a copied run, with its result or error."""

    tool_id: str
    tool_version: object
    arguments: JSON
    result: JSON
    error: str | None = None
    approval: JSONObject | None = None

    def recorded(self) -> RecordedCall:
        """The call as a replay reads it instead of the tool."""
        return RecordedCall(self.tool_id, self.arguments, self.result, self.error, self.approval)


@dataclass(frozen=True)
class RunCopy:
    """What a replay needs of a past run: its agent (or flow) version, input, history,
    toolEnv, output, and every tool call with its arguments and result."""

    agent_id: str | None
    agent_version: str | None
    flow_id: str | None
    flow_version: str | None
    input: JSON
    history: list[JSONObject]
    tool_env: dict[str, dict[str, str]]
    output: JSON
    tool_calls: tuple[CopiedCall, ...] = ()

    @property
    def is_flow(self) -> bool:
        """Whether the run was a flow's (it names a flow and no agent)."""
        return not self.agent_id and bool(self.flow_id)


@dataclass(frozen=True)
class SuiteItem:
    """A suite case's item: its weighted counts, all and restricted-only."""

    key: str
    pointer: str | None
    rank: int | None
    yes_weight: float
    total_weight: float
    restricted_yes: float
    restricted_total: float


@dataclass(frozen=True)
class SuiteCorrection:
    """A suite case's `corrections` entry: what the past run should have done."""

    verdict: object
    calls: tuple[ExpectedCall, ...]
    not_called: tuple[str, ...]
    judgment_id: str | None
    restricted: bool


@dataclass(frozen=True)
class SuiteCase:
    """A `JudgedEvalCase` of a suite version (or a pulled one), with the run it names."""

    case_id: str
    items: tuple[SuiteItem, ...]
    corrections: tuple[SuiteCorrection, ...]
    own_copy: RunCopy
    """A copy from the case's own input, context and output (no tool calls), for when its
    run isn't here."""


@dataclass(frozen=True)
class FrozenItem:
    """An item a frozen case expects, marked right or not."""

    key: str
    pointer: str | None
    rank: int | None
    right: bool


@dataclass(frozen=True)
class FrozenCase:
    """A frozen 0.4 case: what it expects, its corrector group, and its run's copy if kept."""

    case_id: str
    run_id: str
    expert: bool
    judge_class_id: object
    recorded_weight: float
    """Its group's weight when it was frozen (1 without a group), for a group not here."""
    items: tuple[FrozenItem, ...]
    expected: tuple[tuple[str, Decisions | Answer], ...]
    """Its expected `decisions` and `answer`, in that order, each when given."""
    run: RunCopy | None


@dataclass(frozen=True)
class FreezingCase:
    """A test case as a freeze keeps it: the case, its group's weight when it has one here,
    and its run's copy, so the frozen case replays anywhere, run and group or not."""

    case: TestCase
    weight: float | None
    run: RunCopy | None
