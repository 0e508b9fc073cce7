"""How corrections and hand cases keep what they expect of a run as JSON: decisions, answers
and items.

They are kept in the shape the API answers them (`shouldCall`, `toolId`, `mustNotCall`,
`shouldSay`), so rows stored before read as they did; this module is the one place that
writes and reads those names. A stored value is read through a pydantic `TypeAdapter` over
the `TypedDict` of its camelCase keys (jsoncol's convention), so a wrong shape is refused
where it is read instead of surfacing as a `KeyError` later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import NotRequired, TypeVar

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from ..domain.expectations import Answer, Decisions, ExpectedCall, GivenItem
from ..domain.json import JSON, JSONObject

T = TypeVar("T")


class _Call(TypedDict):
    toolId: str
    args: NotRequired[JSONObject | None]


class _Decisions(TypedDict):
    verdict: str
    shouldCall: NotRequired[list[_Call] | None]
    mustNotCall: NotRequired[list[str] | None]


class _Answer(TypedDict):
    verdict: str
    shouldSay: NotRequired[str | None]
    why: NotRequired[str | None]


class _Item(TypedDict):
    key: str
    verdict: str
    pointer: NotRequired[str | None]
    rank: NotRequired[int | None]
    reason: NotRequired[str | None]


@cache
def _adapter(kind: type[T]) -> TypeAdapter[T]:
    """A stored shape's adapter, built when first used (building them at import slows every
    start)."""
    return TypeAdapter(kind)


def _present(fields: Mapping[str, JSON]) -> JSONObject:
    """The fields that are given (not None), in order."""
    return {name: value for name, value in fields.items() if value is not None}


def decisions_json(decisions: Decisions | None) -> JSONObject | None:
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


def calls_json(calls: Sequence[ExpectedCall]) -> list[JSON]:
    """Tool calls as stored: `toolId`, then `args` when given."""
    return [_present({"toolId": c.tool_id, "args": c.args}) for c in calls]


def decisions_of(data: JSON) -> Decisions | None:
    """Stored decisions as their record."""
    if data is None:
        return None
    stored = _adapter(_Decisions).validate_python(data)
    calls = stored.get("shouldCall")
    must_not = stored.get("mustNotCall")
    return Decisions(
        verdict=stored["verdict"],
        should_call=None
        if calls is None
        else tuple(ExpectedCall(c["toolId"], c.get("args")) for c in calls),
        must_not_call=None if must_not is None else tuple(must_not),
    )


def answer_json(answer: Answer | None) -> JSONObject | None:
    """An answer as stored: `verdict`, then `shouldSay` and `why` when given."""
    if answer is None:
        return None
    return _present({"verdict": answer.verdict, "shouldSay": answer.should_say, "why": answer.why})


def answer_of(data: JSON) -> Answer | None:
    """A stored answer as its record (an erased one keeps only its verdict)."""
    if data is None:
        return None
    stored = _adapter(_Answer).validate_python(data)
    return Answer(stored["verdict"], stored.get("shouldSay"), stored.get("why"))


def items_json(items: Sequence[GivenItem]) -> list[JSON]:
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


def items_of(data: JSON) -> tuple[GivenItem, ...]:
    """A hand case's stored items as their records, in stored order."""
    if data is None:
        return ()
    stored = _adapter(list[_Item]).validate_python(data)
    return tuple(
        GivenItem(i["key"], i.get("pointer"), i["verdict"], i.get("rank"), i.get("reason"))
        for i in stored
    )
