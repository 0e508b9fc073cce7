"""How frozen test-set cases and built suite cases are kept as JSON, and read back.

They are kept in the shape the API answers them (`projectId`, `yesWeight`, `judgmentIds`,
`notCalled`, a run's copy under `run`…), camelCase, so versions frozen, built or pulled
before read as they did; this module is the one place that writes and reads those names.
A case is read leniently, each field narrowed where it is taken and a missing one read as
absent, not checked whole by a schema: a pulled case was written by another runtime, and a
replay should start on what it can read, as it always did.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..domain.expectations import Answer, Decisions, ExpectedCall
from ..domain.json import JSON, JSONObject
from ..domain.judged_suites import (
    ItemSummary,
    JudgedCase,
    JudgedReason,
    ShouldHaveDone,
    WeightedSums,
)
from ..domain.stored_cases import (
    CopiedCall,
    FreezingCase,
    FrozenCase,
    FrozenItem,
    RunCopy,
    SuiteCase,
    SuiteCorrection,
    SuiteItem,
)
from ..domain.test_sets import Expectation, TestCase
from .expectations import (
    answer_json,
    answer_of,
    calls_json,
    decisions_json,
    decisions_of,
    items_json,
)

RUN = "$.run"
"""Where a frozen case keeps its run's copy (for SQL over kept cases)."""
RUN_ID = "$.runId"
"""Where a frozen case keeps its run's id."""
EXPERT = "$.expert"
"""Where a frozen case says whether it is an expert's."""


def set_case_json(case: TestCase) -> dict[str, object]:
    """A test case as a frozen version keeps it: its expected parts, each when given."""
    body: dict[str, object] = {
        "id": case.id,
        "kind": case.kind,
        "projectId": case.project_id,
        "runId": case.run_id,
        "madeOn": case.made_on,
        "expect": expect_json(case.expect),
        "expert": case.expert,
    }
    if case.judge_class_id:
        body["judgeClassId"] = case.judge_class_id
    body["addedBy"] = {"kind": case.added_by.kind, "id": case.added_by.id}
    body["addedAt"] = case.added_at
    body["updatedAt"] = case.updated_at
    if case.retired is not None:
        by = {"kind": case.retired.by.kind, "id": case.retired.by.id}
        body["retired"] = {"reason": case.retired.reason, "by": by, "at": case.retired.at}
    return body


def expect_json(expect: Expectation) -> dict[str, object]:
    """A case's `expect`: a part for each part given."""
    found: dict[str, object] = {}
    if expect.items:
        found["items"] = items_json(expect.items)
    if expect.decisions is not None:
        found["decisions"] = decisions_json(expect.decisions)
    if expect.answer is not None:
        found["answer"] = answer_json(expect.answer)
    return found


def frozen_case_json(freezing: FreezingCase) -> dict[str, object]:
    """A frozen case: the case, its group's weight when it has one here, its run's copy."""
    body = set_case_json(freezing.case)
    if freezing.weight is not None:
        body["judgeClassWeight"] = freezing.weight
    if freezing.run is not None:
        body["run"] = run_copy_json(freezing.run)
    return body


def frozen_case_of(case: Mapping[str, JSON]) -> FrozenCase:
    """A frozen case as stored."""
    expect = _object(case.get("expect"))
    copy = case.get("run")
    return FrozenCase(
        case_id=str(case["id"]),
        run_id=str(case["runId"]),
        expert=bool(case.get("expert")),
        judge_class_id=case.get("judgeClassId"),
        recorded_weight=_weight(case.get("judgeClassWeight", 1.0)),
        items=tuple(
            FrozenItem(
                str(i["key"]),
                _text(i.get("pointer")),
                _whole(i.get("rank")),
                i.get("verdict") == "right",
            )
            for i in _objects(expect.get("items"))
        ),
        expected=_expected(expect),
        run=run_copy_of(copy) if isinstance(copy, dict) else None,
    )


def _expected(expect: Mapping[str, JSON]) -> tuple[tuple[str, Decisions | Answer], ...]:
    """A frozen case's expected `decisions` and `answer`, in that order, each when given."""
    decisions, answer = expect.get("decisions"), expect.get("answer")
    found: list[tuple[str, Decisions | Answer | None]] = [
        ("decisions", decisions_of(decisions) if isinstance(decisions, dict) else None),
        ("answer", answer_of(answer) if isinstance(answer, dict) else None),
    ]
    return tuple((part, record) for part, record in found if record is not None)


def _object(value: JSON) -> JSONObject:
    """A kept object (`{}` for anything else)."""
    return value if isinstance(value, dict) else {}


def _object_or_none(value: JSON) -> JSONObject | None:
    return value if isinstance(value, dict) else None


def _objects(value: JSON) -> list[JSONObject]:
    """The objects of a kept list (none for anything else)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _text(value: JSON) -> str | None:
    return value if isinstance(value, str) else None


def _whole(value: JSON) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: JSON) -> float:
    """A kept weight (0 when there is none)."""
    return float(value) if isinstance(value, int | float) else 0.0


def _weight(value: JSON) -> float:
    """A frozen case's recorded group weight, as kept (1 when it has none)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 1.0


def run_copy_json(copy: RunCopy) -> dict[str, object]:
    """A run's copy as a frozen case carries it; a flow's names appear only without an agent."""
    calls = [
        {
            "toolId": c.tool_id,
            "toolVersion": c.tool_version,
            "arguments": c.arguments,
            "result": c.result,
            **({"error": c.error} if c.error else {}),
            **({"approval": c.approval} if c.approval else {}),
        }
        for c in copy.tool_calls
    ]
    flow = {} if copy.agent_id else {"flowId": copy.flow_id, "flowVersion": copy.flow_version}
    return {
        "agentId": copy.agent_id,
        "agentVersion": copy.agent_version,
        **flow,
        "input": copy.input,
        "history": copy.history,
        "toolEnv": copy.tool_env,
        "output": copy.output,
        "toolCalls": calls,
    }


def run_copy_of(data: Mapping[str, JSON]) -> RunCopy:
    """A run's copy as a frozen case carries it (`run`)."""
    return RunCopy(
        agent_id=_text(data.get("agentId")),
        agent_version=_text(data.get("agentVersion")),
        flow_id=_text(data.get("flowId")),
        flow_version=_text(data.get("flowVersion")),
        input=data.get("input"),
        history=_objects(data.get("history")),
        tool_env=_tool_env(data.get("toolEnv")),
        output=data.get("output"),
        tool_calls=tuple(
            CopiedCall(
                str(c.get("toolId")),
                c.get("toolVersion"),
                c.get("arguments"),
                c.get("result"),
                _text(c.get("error")),
                _object_or_none(c.get("approval")),
            )
            for c in _objects(data.get("toolCalls"))
        ),
    )


def _tool_env(value: JSON) -> dict[str, dict[str, str]]:
    """A run's kept tool env: each tool's variables."""
    return {
        tool: {name: str(text) for name, text in env.items()}
        for tool, env in _object(value).items()
        if isinstance(env, dict)
    }


def judged_case_json(case: JudgedCase) -> dict[str, object]:
    """A built suite's case (`JudgedEvalCase`); an erased run's has no input or output."""
    if case.erased:
        return {
            "caseId": case.case_id,
            "subject": case.subject,
            "input": None,
            "output": None,
            "items": [],
            "erased": True,
        }
    body: dict[str, object] = {"caseId": case.case_id, "subject": case.subject, "input": case.input}
    if case.context:
        body["context"] = case.context
    body["output"] = case.output
    body["items"] = [summary_json(item) for item in case.items]
    if case.corrections is not None:
        body["corrections"] = [should_have_done_json(c) for c in case.corrections]
    return body


def summary_json(item: ItemSummary) -> dict[str, object]:
    """An item's summary (`JudgedItemSummary`): where it is when known, then its sums."""
    body: dict[str, object] = {"key": item.key}
    if item.pointer is not None:
        body["pointer"] = item.pointer
    if item.rank is not None:
        body["rank"] = item.rank
    body.update(yes=item.yes, no=item.no)
    body["yesWeight"] = item.weighted.yes_weight
    body["totalWeight"] = item.weighted.total_weight
    body["restricted"] = _sums_json(item.restricted)
    body["judgmentIds"] = list(item.weighted.judgment_ids)
    body["reasons"] = [_reason_json(reason) for reason in item.reasons]
    return body


def _sums_json(sums: WeightedSums) -> dict[str, object]:
    return {
        "yesWeight": sums.yes_weight,
        "totalWeight": sums.total_weight,
        "judgmentIds": list(sums.judgment_ids),
    }


def _reason_json(reason: JudgedReason) -> dict[str, object]:
    body: dict[str, object] = {"verdict": reason.verdict, "reason": reason.reason}
    if reason.judge_class_id:
        body["judgeClassId"] = reason.judge_class_id
    if reason.restricted:
        body["restricted"] = True
    return body


def should_have_done_json(entry: ShouldHaveDone) -> dict[str, object]:
    """A suite case's `corrections` entry: the calls it should (not) have made, by whom."""
    body: dict[str, object] = {
        "judgmentId": entry.judgment_id,
        "verdict": entry.verdict,
        "calls": calls_json(entry.calls),
        "notCalled": list(entry.not_called),
    }
    if entry.judge_class_id:
        body["judgeClassId"] = entry.judge_class_id
    if entry.restricted:
        body["restricted"] = True
    return body


def suite_case_of(case: Mapping[str, JSON]) -> SuiteCase:
    """A suite case as stored (built here or pulled)."""
    items = []
    for item in _objects(case.get("items")):
        restricted = _object(item.get("restricted"))
        items.append(
            SuiteItem(
                str(item["key"]),
                _text(item.get("pointer")),
                _whole(item.get("rank")),
                _number(item.get("yesWeight")),
                _number(item.get("totalWeight")),
                _number(restricted.get("yesWeight")),
                _number(restricted.get("totalWeight")),
            )
        )
    corrections = tuple(
        SuiteCorrection(
            c.get("verdict"),
            tuple(
                ExpectedCall(str(call.get("toolId")), _object_or_none(call.get("args")))
                for call in _objects(c.get("calls"))
            ),
            tuple(str(name) for name in _list(c.get("notCalled"))),
            _text(c.get("judgmentId")),
            bool(c.get("restricted")),
        )
        for c in _objects(case.get("corrections"))
    )
    return SuiteCase(str(case["caseId"]), tuple(items), corrections, _own_copy(case))


def _list(value: JSON) -> list[JSON]:
    return list(value) if isinstance(value, list) else []


def _own_copy(case: Mapping[str, JSON]) -> RunCopy:
    """A run copy from a suite case's own input, context and output (no tool calls)."""
    subject = _object(case.get("subject"))
    context = _object(case.get("context"))
    data = case.get("input")
    flow = subject.get("kind") == "flow"
    named, version = _text(subject.get("id")), _text(subject.get("version"))
    return RunCopy(
        agent_id=None if flow else named,
        agent_version=None if flow else version,
        flow_id=named if flow else None,
        flow_version=version if flow else None,
        input={"userMessage": data} if isinstance(data, str) and not flow else data,
        history=_objects(context.get("history")),
        tool_env=_tool_env(context.get("toolEnv")),
        output=case.get("output"),
    )
