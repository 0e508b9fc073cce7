"""The cases a run on the test cases replays, from a suite version or a frozen test set.

Either way a case names a past run; what it expects comes from the case, and what the
past run did (its input, history, toolEnv, output, tool calls and their results) from a
copy of the run: the frozen case's own `run`, or one made from the stored run. Stored
cases are read through `store.case_json`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any, overload

from ..domain import test_sets as test_set_rules
from ..domain.comparison import CheckedPart, ReplayCase
from ..domain.expectations import Decisions
from ..domain.json import JSON, JSONObject
from ..domain.metrics import Verdict
from ..domain.stored_cases import CopiedCall, RunCopy, SuiteCase, SuiteCorrection
from ..store import case_json, judge_classes
from ..store import runs as run_store
from ..store import test_sets as test_set_store
from ..store import tool_calls as tool_call_store
from ..store.runs import StoredRun
from .context import Context


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("userMessage", ""))
    return "" if data is None else str(data)


def _tool_env(stored: JSON) -> dict[str, dict[str, str]]:
    """The environment a run's tools were sent, by tool id (values as text)."""
    if not isinstance(stored, dict):
        return {}
    return {
        tool: {k: str(v) for k, v in env.items()}
        for tool, env in stored.items()
        if isinstance(env, dict)
    }


def run_copy(ctx: Context, run_id: str) -> RunCopy | None:
    """What a replay needs of a stored run (None when it isn't here); a frozen case carries
    it (`run`) so it replays anywhere."""
    run = run_store.get(ctx.db, run_id)
    if run is None:
        return None
    return _copy_of(run, tool_call_store.tool_calls(ctx.db, run_id))


def run_copies(ctx: Context, run_ids: Sequence[str]) -> dict[str, RunCopy]:
    """`run_copy` of several runs, by id (one not stored is left out), read together."""
    runs = run_store.get_many(ctx.db, run_ids)
    calls = tool_call_store.tool_calls_of(ctx.db, list(runs))
    return {run_id: _copy_of(run, calls.get(run_id, [])) for run_id, run in runs.items()}


def _copy_of(run: StoredRun, calls: Sequence[JSONObject]) -> RunCopy:
    """A stored run and its tool calls as a replay copies them."""
    history = (run.context or {}).get("history")
    agent_id = run.agent_id
    return RunCopy(
        agent_id=agent_id,
        agent_version=run.agent_version,
        flow_id=None if agent_id else run.flow_id,
        flow_version=None if agent_id else run.flow_version,
        input=run.input,
        history=[h for h in history if isinstance(h, dict)] if isinstance(history, list) else [],
        tool_env=_tool_env(run.tool_env),
        output=run.output,
        tool_calls=tuple(_copied(c) for c in calls),
    )


def _copied(call: JSONObject) -> CopiedCall:
    """A recorded tool call as a replay copies it."""
    approval = call.get("approval")
    return CopiedCall(
        str(call["toolId"]),
        str(call["toolVersion"]),
        call["arguments"],
        call["result"],
        str(call["error"]) if call["error"] else None,
        approval if isinstance(approval, dict) else None,
    )


def of_copy(
    case_id: str,
    run_id: str,
    copy: RunCopy,
    verdicts: list[Verdict],
    expectations: list[CheckedPart],
) -> ReplayCase:
    """The case to replay from a run's copy and what people said of the run."""
    flow_case = copy.is_flow
    return ReplayCase(
        case_id=case_id,
        run_id=run_id,
        agent_id=str(copy.flow_id if flow_case else copy.agent_id),
        made_on=str(copy.flow_version if flow_case else copy.agent_version),
        message=_message(copy.input),
        history=list(copy.history),
        tool_env=dict(copy.tool_env),
        output=copy.output,
        recorded_tool_ids=tuple(c.tool_id for c in copy.tool_calls),
        verdicts=tuple(verdicts),
        expectations=tuple(expectations),
        recorded=tuple(c.recorded() for c in copy.tool_calls),
        flow_input=copy.input if flow_case else None,
    )


def build(
    ctx: Context,
    case_id: str,
    run_id: str,
    verdicts: list[Verdict],
    expectations: list[CheckedPart],
) -> ReplayCase | None:
    """The case to replay from the stored run (None when it isn't here)."""
    copy = run_copy(ctx, run_id)
    return None if copy is None else of_copy(case_id, run_id, copy, verdicts, expectations)


SUITE_PAGE = 100
"""Suite cases whose runs are read together: as many as a page of them read."""


def from_suite_cases(
    ctx: Context, stored: Iterable[Mapping[str, Any]], *, restricted_only: bool
) -> list[ReplayCase]:
    """`JudgedEvalCase`s to replay, their runs read `SUITE_PAGE` cases at a time."""
    found: list[ReplayCase] = []
    cases = iter(stored)
    while page := [case_json.suite_case_of(c) for c in islice(cases, SUITE_PAGE)]:
        copies = run_copies(ctx, [case.case_id for case in page])
        found += [_of_suite_case(case, copies, restricted_only) for case in page]
    return found


def _of_suite_case(
    case: SuiteCase, copies: Mapping[str, RunCopy], restricted_only: bool
) -> ReplayCase:
    """A `JudgedEvalCase`: its items' weighted counts become verdicts, its corrections checks
    (only the restricted ones when only experts' corrections count); what the run did from
    its stored copy in `copies`, else from the case's own."""
    verdicts: list[Verdict] = []
    for item in case.items:
        r_yes = item.restricted_yes
        r_no = item.restricted_total - r_yes
        yes = item.yes_weight - r_yes
        no = item.total_weight - item.yes_weight - r_no
        for weight, is_yes, is_restricted in (
            (yes, True, False),
            (no, False, False),
            (r_yes, True, True),
            (r_no, False, True),
        ):
            if weight > 0:
                verdicts.append(
                    Verdict(item.key, item.pointer, item.rank, is_yes, weight, is_restricted)
                )
    expectations = [
        e
        for c in case.corrections
        if (not restricted_only or c.restricted) and (e := _suite_expectation(c))
    ]
    copy = copies.get(case.case_id, case.own_copy)
    return of_copy(case.case_id, case.case_id, copy, verdicts, expectations)


def _suite_expectation(correction: SuiteCorrection) -> CheckedPart | None:
    """A suite case's `corrections` entry (what the run should have done) as a check.

    `right` wants the tools the past run called, by name, in any order (none when it
    called none), as on the test-set path, named by the entry's `calls` so a pulled case
    without the run's calls checks them too; `wrong`, and an entry from before verdicts
    were kept, want its calls and none of its `notCalled`.
    """
    calls = correction.calls
    if correction.verdict == "right":
        tools = tuple(call.tool_id for call in calls)
        return CheckedPart("decisions", Decisions("right"), correction.judgment_id, tools)
    not_called = correction.not_called
    if not calls and not not_called:
        return None
    decisions = Decisions("wrong", calls, not_called)
    return CheckedPart("decisions", decisions, correction.judgment_id)


def class_weight(ctx: Context, class_id: Any) -> float | None:
    """A corrector group's weight here, or None when it isn't one of this runtime's."""
    klass = judge_classes.get(ctx.db, str(class_id)) if class_id else None
    return float(klass.weight) if klass else None


def from_test_set_case(
    ctx: Context, stored: Mapping[str, Any], *, restricted_only: bool
) -> ReplayCase | None:
    """A frozen 0.4 case: its expected items, decisions and answer; its group's weight as it
    is here, or as it was frozen (`judgeClassWeight`) when the group is another runtime's."""
    case = case_json.frozen_case_of(stored)
    weight = class_weight(ctx, case.judge_class_id)
    if weight is None:
        weight = float(case.recorded_weight)
    verdicts = [Verdict(i.key, i.pointer, i.rank, i.right, weight, case.expert) for i in case.items]
    expectations = []
    if not restricted_only or case.expert:
        expectations = [
            CheckedPart(part, expected, case.case_id) for part, expected in case.expected
        ]
    if case.run is not None:
        return of_copy(case.case_id, case.run_id, case.run, verdicts, expectations)
    return build(ctx, case.case_id, case.run_id, verdicts, expectations)


PAGE = 25
"""Frozen cases read into memory at a time while a run replays them: a page (a case
carries its run's copy, about 10 kB) fits in memory the process already holds, where a
larger one would take new memory that long-lived objects then pin after the run."""


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
