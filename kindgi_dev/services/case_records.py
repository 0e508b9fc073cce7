"""The stored cases a replay starts from, as typed records: a run's copy, a suite case,
a frozen 0.4 case.

Frozen and pulled cases are kept as the API answers them (camelCase JSON, a run's copy
under `run`; `store.case_json` writes them); this module is the one place that reads those
names, so the replay code works on fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..domain.expectations import Answer, Decisions, ExpectedCall
from ..domain.replay import RecordedCall
from ..store.expectations import answer_of, decisions_of


@dataclass(frozen=True)
class CopiedCall:
    """One tool call of a copied run, with its result or error."""

    tool_id: str
    tool_version: object
    arguments: object
    result: object
    error: str | None = None

    def recorded(self) -> RecordedCall:
        """The call as a replay reads it instead of the tool."""
        return RecordedCall(self.tool_id, self.arguments, self.result, self.error)


@dataclass(frozen=True)
class RunCopy:
    """What a replay needs of a past run: its agent (or flow) version, input, history,
    toolEnv, output, and every tool call with its arguments and result."""

    agent_id: str | None
    agent_version: str | None
    flow_id: str | None
    flow_version: str | None
    input: object
    history: list[dict[str, Any]]
    tool_env: dict[str, dict[str, str]]
    output: object
    tool_calls: tuple[CopiedCall, ...] = ()

    @property
    def is_flow(self) -> bool:
        """Whether the run was a flow's (it names a flow and no agent)."""
        return not self.agent_id and bool(self.flow_id)

    @classmethod
    def decode(cls, data: Mapping[str, Any]) -> RunCopy:
        """A copy as a frozen case carries it (`run`)."""
        calls = [c for c in data.get("toolCalls") or [] if isinstance(c, dict)]
        return cls(
            agent_id=data.get("agentId"),
            agent_version=data.get("agentVersion"),
            flow_id=data.get("flowId"),
            flow_version=data.get("flowVersion"),
            input=data.get("input"),
            history=list(data.get("history") or []),
            tool_env=dict(data.get("toolEnv") or {}),
            output=data.get("output"),
            tool_calls=tuple(
                CopiedCall(
                    str(c.get("toolId")),
                    c.get("toolVersion"),
                    c.get("arguments"),
                    c.get("result"),
                    c.get("error"),
                )
                for c in calls
            ),
        )

    def encoded(self) -> dict[str, Any]:
        """The copy as a frozen case carries it; a flow's names appear only without an agent."""
        calls = [
            {
                "toolId": c.tool_id,
                "toolVersion": c.tool_version,
                "arguments": c.arguments,
                "result": c.result,
                **({"error": c.error} if c.error else {}),
            }
            for c in self.tool_calls
        ]
        flow = {} if self.agent_id else {"flowId": self.flow_id, "flowVersion": self.flow_version}
        return {
            "agentId": self.agent_id,
            "agentVersion": self.agent_version,
            **flow,
            "input": self.input,
            "history": self.history,
            "toolEnv": self.tool_env,
            "output": self.output,
            "toolCalls": calls,
        }


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
    data: Mapping[str, Any]
    """The stored case, read again only when its run isn't here (`own_copy`)."""

    @classmethod
    def decode(cls, case: Mapping[str, Any]) -> SuiteCase:
        """A suite case as stored."""
        items = []
        for item in case.get("items") or []:
            restricted = item.get("restricted") or {}
            items.append(
                SuiteItem(
                    item["key"],
                    item.get("pointer"),
                    item.get("rank"),
                    float(item.get("yesWeight", 0)),
                    float(item.get("totalWeight", 0)),
                    float(restricted.get("yesWeight", 0)),
                    float(restricted.get("totalWeight", 0)),
                )
            )
        corrections = tuple(
            SuiteCorrection(
                c.get("verdict"),
                tuple(
                    ExpectedCall(str(call.get("toolId")), call.get("args"))
                    for call in c.get("calls") or []
                ),
                tuple(c.get("notCalled") or []),
                c.get("judgmentId"),
                bool(c.get("restricted")),
            )
            for c in case.get("corrections") or []
        )
        return cls(str(case["caseId"]), tuple(items), corrections, case)

    def own_copy(self) -> RunCopy:
        """A run copy from a pulled case's own input, context and output (no tool calls)."""
        subject = self.data.get("subject") or {}
        context = self.data.get("context") or {}
        data = self.data.get("input")
        flow = subject.get("kind") == "flow"
        return RunCopy(
            agent_id=None if flow else subject.get("id"),
            agent_version=None if flow else subject.get("version"),
            flow_id=subject.get("id") if flow else None,
            flow_version=subject.get("version") if flow else None,
            input={"userMessage": data} if isinstance(data, str) and not flow else data,
            history=list(context.get("history") or []),
            tool_env=dict(context.get("toolEnv") or {}),
            output=self.data.get("output"),
        )


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
    recorded_weight: Any
    """Its group's weight when it was frozen (1 without a group), for a group not here."""
    items: tuple[FrozenItem, ...]
    expected: tuple[tuple[str, Decisions | Answer], ...]
    """Its expected `decisions` and `answer`, in that order, each when given."""
    run: RunCopy | None

    @classmethod
    def decode(cls, case: Mapping[str, Any]) -> FrozenCase:
        """A frozen case as stored."""
        expect = case.get("expect") or {}
        copy = case.get("run")
        return cls(
            case_id=str(case["id"]),
            run_id=str(case["runId"]),
            expert=bool(case.get("expert")),
            judge_class_id=case.get("judgeClassId"),
            recorded_weight=case.get("judgeClassWeight", 1.0),
            items=tuple(
                FrozenItem(i["key"], i.get("pointer"), i.get("rank"), i.get("verdict") == "right")
                for i in expect.get("items") or []
            ),
            expected=_expected(expect),
            run=RunCopy.decode(copy) if isinstance(copy, dict) else None,
        )


def _expected(expect: Mapping[str, Any]) -> tuple[tuple[str, Decisions | Answer], ...]:
    """A frozen case's expected `decisions` and `answer`, in that order, each when given."""
    decisions, answer = expect.get("decisions"), expect.get("answer")
    found: list[tuple[str, Decisions | Answer | None]] = [
        ("decisions", decisions_of(decisions) if isinstance(decisions, dict) else None),
        ("answer", answer_of(answer) if isinstance(answer, dict) else None),
    ]
    return tuple((part, record) for part, record in found if record is not None)
