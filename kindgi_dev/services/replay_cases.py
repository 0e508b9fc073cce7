"""The cases a run on the test cases replays, from a suite version or a frozen test set.

Either way a case names a past run; what it expects comes from the case, and what the
past run did (its input, history, toolEnv, output, tool calls and their results) from a
copy of the run: the frozen case's own `run`, or one made from the stored run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

from ..domain import test_sets as test_set_rules
from ..domain.comparison import Expectation, ReplayCase
from ..domain.metrics import Verdict
from ..domain.replay import RecordedCall
from ..store import judge_classes
from ..store import runs as run_store
from ..store import test_sets as test_set_store
from .context import Context


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("userMessage", ""))
    return "" if data is None else str(data)


def run_copy(ctx: Context, run_id: str) -> dict[str, Any] | None:
    """What a replay needs of a past run, as JSON a frozen case carries: its agent version,
    input, history, toolEnv, output, and every tool call with its arguments and result."""
    run = run_store.get(ctx.db, run_id)
    if run is None:
        return None
    context = run.get("context") or {}
    calls = [
        {
            "toolId": c["toolId"],
            "toolVersion": c["toolVersion"],
            "arguments": c["arguments"],
            "result": c["result"],
            **({"error": c["error"]} if c.get("error") else {}),
        }
        for c in run_store.tool_calls(ctx.db, run_id)
    ]
    return {
        "agentId": run.get("agent_id"),
        "agentVersion": run.get("agent_version"),
        **(
            {}
            if run.get("agent_id")
            else {"flowId": run.get("flow_id"), "flowVersion": run.get("flow_version")}
        ),
        "input": run.get("input"),
        "history": list(context.get("history") or []),
        "toolEnv": dict(run.get("tool_env") or {}),
        "output": run.get("output"),
        "toolCalls": calls,
    }


def of_copy(
    case_id: str,
    run_id: str,
    copy: Mapping[str, Any],
    verdicts: list[Verdict],
    expectations: list[Expectation],
) -> ReplayCase:
    """The case to replay from a run's copy and what people said of the run."""
    calls = [c for c in copy.get("toolCalls") or [] if isinstance(c, dict)]
    flow_case = not copy.get("agentId") and bool(copy.get("flowId"))
    return ReplayCase(
        case_id=case_id,
        run_id=run_id,
        agent_id=str(copy.get("flowId") if flow_case else copy.get("agentId")),
        made_on=str(copy.get("flowVersion") if flow_case else copy.get("agentVersion")),
        message=_message(copy.get("input")),
        history=list(copy.get("history") or []),
        tool_env=dict(copy.get("toolEnv") or {}),
        output=copy.get("output"),
        recorded_tool_ids=tuple(str(c.get("toolId")) for c in calls),
        verdicts=tuple(verdicts),
        expectations=tuple(expectations),
        recorded=tuple(
            RecordedCall(str(c.get("toolId")), c.get("arguments"), c.get("result"), c.get("error"))
            for c in calls
        ),
        flow_input=copy.get("input") if flow_case else None,
    )


def build(
    ctx: Context,
    case_id: str,
    run_id: str,
    verdicts: list[Verdict],
    expectations: list[Expectation],
) -> ReplayCase | None:
    """The case to replay from the stored run (None when it isn't here)."""
    copy = run_copy(ctx, run_id)
    return None if copy is None else of_copy(case_id, run_id, copy, verdicts, expectations)


def from_suite_case(
    ctx: Context, case: Mapping[str, Any], *, restricted_only: bool
) -> ReplayCase | None:
    """A `JudgedEvalCase`: its items' weighted counts become verdicts, its corrections checks
    (only the restricted ones when only experts' corrections count)."""
    verdicts: list[Verdict] = []
    for item in case.get("items") or []:
        restricted = item.get("restricted") or {}
        r_yes = float(restricted.get("yesWeight", 0))
        r_no = float(restricted.get("totalWeight", 0)) - r_yes
        yes = float(item.get("yesWeight", 0)) - r_yes
        no = float(item.get("totalWeight", 0)) - float(item.get("yesWeight", 0)) - r_no
        for weight, is_yes, is_restricted in (
            (yes, True, False),
            (no, False, False),
            (r_yes, True, True),
            (r_no, False, True),
        ):
            if weight > 0:
                verdicts.append(
                    Verdict(
                        item["key"],
                        item.get("pointer"),
                        item.get("rank"),
                        is_yes,
                        weight,
                        is_restricted,
                    )
                )
    expectations = [
        e
        for c in case.get("corrections") or []
        if (not restricted_only or c.get("restricted")) and (e := _suite_expectation(c))
    ]
    found = build(ctx, str(case["caseId"]), str(case["caseId"]), verdicts, expectations)
    if found is not None:
        return found
    return of_copy(
        str(case["caseId"]), str(case["caseId"]), _suite_copy(case), verdicts, expectations
    )


def _suite_copy(case: Mapping[str, Any]) -> dict[str, Any]:
    """A run copy from a pulled suite case's own input, context and output (no tool calls)."""
    subject = case.get("subject") or {}
    context = case.get("context") or {}
    data = case.get("input")
    kind = "flow" if subject.get("kind") == "flow" else "agent"
    return {
        f"{kind}Id": subject.get("id"),
        f"{kind}Version": subject.get("version"),
        "input": {"userMessage": data} if isinstance(data, str) and kind == "agent" else data,
        "history": context.get("history") or [],
        "toolEnv": context.get("toolEnv") or {},
        "output": case.get("output"),
        "toolCalls": [],
    }


def _suite_expectation(correction: Mapping[str, Any]) -> Expectation | None:
    """A suite case's `corrections` entry (what the run should have done) as a check.

    `right` wants the tools the past run called, by name, in any order (none when it
    called none), as on the test-set path, named by the entry's `calls` so a pulled case
    without the run's calls checks them too; `wrong`, and an entry from before verdicts
    were kept, want its calls and none of its `notCalled`.
    """
    calls = correction.get("calls") or []
    if correction.get("verdict") == "right":
        tools = [str(call.get("toolId")) for call in calls]
        expected = {"verdict": "right", "tools": tools}
        return Expectation("decisions", expected, correction.get("judgmentId"))
    not_called = correction.get("notCalled") or []
    if not calls and not not_called:
        return None
    decisions = {"verdict": "wrong", "shouldCall": calls, "mustNotCall": not_called}
    return Expectation("decisions", decisions, correction.get("judgmentId"))


def class_weight(ctx: Context, class_id: Any) -> float | None:
    """A corrector group's weight here, or None when it isn't one of this runtime's."""
    klass = judge_classes.get(ctx.db, str(class_id)) if class_id else None
    return float(klass["weight"]) if klass else None


def from_test_set_case(
    ctx: Context, case: Mapping[str, Any], *, restricted_only: bool
) -> ReplayCase | None:
    """A frozen 0.4 case: its expected items, decisions and answer; its group's weight as it
    is here, or as it was frozen (`judgeClassWeight`) when the group is another runtime's."""
    expect = case.get("expect") or {}
    expert = bool(case.get("expert"))
    weight = class_weight(ctx, case.get("judgeClassId"))
    if weight is None:
        weight = float(case.get("judgeClassWeight", 1.0))
    verdicts = [
        Verdict(
            i["key"], i.get("pointer"), i.get("rank"), i.get("verdict") == "right", weight, expert
        )
        for i in expect.get("items") or []
    ]
    expectations = []
    if not restricted_only or expert:
        for part in ("decisions", "answer"):
            if isinstance(expect.get(part), dict):
                expectations.append(Expectation(part, dict(expect[part]), case.get("id")))
    copy = case.get("run")
    if isinstance(copy, dict):
        return of_copy(str(case["id"]), str(case["runId"]), copy, verdicts, expectations)
    return build(ctx, str(case["id"]), str(case["runId"]), verdicts, expectations)


PAGE = 100
"""Frozen cases read into memory at a time while a run replays them."""


class FrozenCases(Sequence[ReplayCase]):
    """A frozen version's cases to replay, read a page at a time as the run reaches them,
    so a run of thousands of cases never holds them all (only experts' with
    `restricted_only`)."""

    def __init__(self, ctx: Context, test_set_id: str, version: str, restricted_only: bool):
        number = test_set_rules.version_number(version)
        assert number is not None, f"{version} is not a frozen version"
        self._ctx = ctx
        self._set = (test_set_id, number)
        self._restricted_only = restricted_only
        self._seqs = test_set_store.replayable_seqs(
            ctx.db, test_set_id, number, experts_only=restricted_only
        )
        self._pages: dict[int, list[ReplayCase]] = {}

    def __len__(self) -> int:
        return len(self._seqs)

    @overload
    def __getitem__(self, index: int) -> ReplayCase: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ReplayCase]: ...

    def __getitem__(self, index: int | slice) -> ReplayCase | Sequence[ReplayCase]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not 0 <= index < len(self._seqs):
            raise IndexError(index)
        number = index // PAGE
        page = self._pages.get(number)
        if page is None:
            page = self._read(number)
            self._pages = {n: p for n, p in self._pages.items() if n == number - 1}
            self._pages[number] = page
        return page[index % PAGE]

    def _read(self, number: int) -> list[ReplayCase]:
        """One page of cases, in order, from the store."""
        seqs = self._seqs[number * PAGE : (number + 1) * PAGE]
        wanted = set(seqs)
        rows = test_set_store.version_cases(
            self._ctx.db, *self._set, after=seqs[0] - 1, limit=seqs[-1] - seqs[0] + 1
        )
        cases = [
            from_test_set_case(self._ctx, case, restricted_only=self._restricted_only)
            for seq, case in rows
            if seq in wanted
        ]
        return [case for case in cases if case is not None]
