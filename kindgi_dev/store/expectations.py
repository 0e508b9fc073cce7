"""How corrections and hand cases keep what they expect of a run as JSON: decisions, answers
and items.

They are kept in the shape the API answers them (`shouldCall`, `toolId`, `mustNotCall`,
`shouldSay`), so rows stored before read as they did; this module is the one place that
writes and reads those names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..domain.expectations import Answer, Decisions, ExpectedCall, GivenItem


def _present(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields that are given (not None), in order."""
    return {name: value for name, value in fields.items() if value is not None}


def decisions_json(decisions: Decisions | None) -> dict[str, Any] | None:
    """Decisions as stored: `verdict`, then `shouldCall` and `mustNotCall` when given."""
    if decisions is None:
        return None
    calls, must_not = decisions.should_call, decisions.must_not_call
    return _present(
        {
            "verdict": decisions.verdict,
            "shouldCall": None if calls is None else calls_json(calls),
            "mustNotCall": None if must_not is None else list(must_not),
        }
    )


def calls_json(calls: Sequence[ExpectedCall]) -> list[dict[str, Any]]:
    """Tool calls as stored: `toolId`, then `args` when given."""
    return [_present({"toolId": c.tool_id, "args": c.args}) for c in calls]


def decisions_of(data: Mapping[str, Any] | None) -> Decisions | None:
    """Stored decisions as their record."""
    if data is None:
        return None
    calls = data.get("shouldCall")
    must_not = data.get("mustNotCall")
    return Decisions(
        verdict=data["verdict"],
        should_call=None
        if calls is None
        else tuple(ExpectedCall(c["toolId"], c.get("args")) for c in calls),
        must_not_call=None if must_not is None else tuple(must_not),
    )


def answer_json(answer: Answer | None) -> dict[str, Any] | None:
    """An answer as stored: `verdict`, then `shouldSay` and `why` when given."""
    if answer is None:
        return None
    return _present({"verdict": answer.verdict, "shouldSay": answer.should_say, "why": answer.why})


def answer_of(data: Mapping[str, Any] | None) -> Answer | None:
    """A stored answer as its record (an erased one keeps only its verdict)."""
    if data is None:
        return None
    return Answer(data["verdict"], data.get("shouldSay"), data.get("why"))


def items_json(items: Sequence[GivenItem]) -> list[dict[str, Any]]:
    """A hand case's expected items as stored: each given field, in the body's order."""
    return [
        _present(
            {
                "key": item.key,
                "pointer": item.pointer,
                "rank": item.rank,
                "verdict": item.verdict,
                "reason": item.reason,
            }
        )
        for item in items
    ]


def items_of(data: Sequence[Mapping[str, Any]] | None) -> tuple[GivenItem, ...]:
    """A hand case's stored items as their records, in stored order."""
    return tuple(
        GivenItem(i["key"], i.get("pointer"), i["verdict"], i.get("rank"), i.get("reason"))
        for i in data or ()
    )
