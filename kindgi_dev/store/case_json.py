"""How frozen test-set cases and built suite cases are kept as JSON.

They are kept in the shape the API answers them (`projectId`, `yesWeight`, `judgmentIds`,
`notCalled`…), so versions frozen or built before read as they did; this module is the one
place that writes those names (`services.case_records` reads them back).
"""

from __future__ import annotations

from typing import Any

from ..domain.test_sets import (
    Expectation,
    ItemSummary,
    JudgedCase,
    JudgedReason,
    ShouldHaveDone,
    TestCase,
    WeightedSums,
)
from .expectations import answer_json, calls_json, decisions_json, items_json


def set_case_json(case: TestCase) -> dict[str, Any]:
    """A test case as a frozen version keeps it: its expected parts, each when given."""
    body: dict[str, Any] = {
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


def expect_json(expect: Expectation) -> dict[str, Any]:
    """A case's `expect`: a part for each part given."""
    found: dict[str, Any] = {}
    if expect.items:
        found["items"] = items_json(expect.items)
    if expect.decisions is not None:
        found["decisions"] = decisions_json(expect.decisions)
    if expect.answer is not None:
        found["answer"] = answer_json(expect.answer)
    return found


def frozen_case_json(
    case: TestCase, weight: float | None, run: dict[str, Any] | None
) -> dict[str, Any]:
    """A frozen case: the case, its group's weight when it has one here, its run's copy."""
    body = set_case_json(case)
    if weight is not None:
        body["judgeClassWeight"] = weight
    if run is not None:
        body["run"] = run
    return body


def judged_case_json(case: JudgedCase) -> dict[str, Any]:
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
    body: dict[str, Any] = {"caseId": case.case_id, "subject": case.subject, "input": case.input}
    if case.context:
        body["context"] = case.context
    body["output"] = case.output
    body["items"] = [summary_json(item) for item in case.items]
    if case.corrections is not None:
        body["corrections"] = [should_have_done_json(c) for c in case.corrections]
    return body


def summary_json(item: ItemSummary) -> dict[str, Any]:
    """An item's summary (`JudgedItemSummary`): where it is when known, then its sums."""
    body: dict[str, Any] = {"key": item.key}
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


def _sums_json(sums: WeightedSums) -> dict[str, Any]:
    return {
        "yesWeight": sums.yes_weight,
        "totalWeight": sums.total_weight,
        "judgmentIds": list(sums.judgment_ids),
    }


def _reason_json(reason: JudgedReason) -> dict[str, Any]:
    body: dict[str, Any] = {"verdict": reason.verdict, "reason": reason.reason}
    if reason.judge_class_id:
        body["judgeClassId"] = reason.judge_class_id
    if reason.restricted:
        body["restricted"] = True
    return body


def should_have_done_json(entry: ShouldHaveDone) -> dict[str, Any]:
    """A suite case's `corrections` entry: the calls it should (not) have made, by whom."""
    body: dict[str, Any] = {
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
