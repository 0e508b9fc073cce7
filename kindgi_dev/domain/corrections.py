"""The rules of a correction, pure: what a body may say, who may use a judge class, and words.

A correction (0.4) is one corrector's verdicts on the items of one run, plus optional
`decisions` and `answer`; each verdict is what 0.1 calls a judgment. 0.4 says
`right`/`wrong` where 0.1 says `yes`/`no`; the store keeps `yes`/`no`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .errors import ValidationFailed
from .items import item_at
from .pointers import parse_pointer, resolve

RIGHT_WRONG = ("right", "wrong")
YES_NO = ("yes", "no")
STATUSES = ("open", "fixed", "with-owner", "wont-fix", "removed")
REVIEWER_ROLES = ("standard", "senior", "admin")
MAX_REASON = 4000
_STORED = {"right": "yes", "wrong": "no", "yes": "yes", "no": "no"}


class Corrector(NamedTuple):
    """Who gives a correction: a principal, and the app's end user it speaks for ("" none)."""

    kind: str
    id: str
    participant_id: str


class AssertedClass(NamedTuple):
    """The judge class a verdict is given under (None: none), and whether it is restricted."""

    class_id: str | None
    restricted: bool


@dataclass(frozen=True)
class CorrectedItem:
    """One item's verdict as checked: the stored verdict is always `yes` or `no`."""

    key: str
    pointer: str | None
    rank: int | None
    verdict: str
    reason: str | None


def stored_verdict(verdict: str) -> str:
    """`yes`/`no` for a 0.4 `right`/`wrong` (or a 0.1 verdict as it is)."""
    return _STORED[verdict]


def right_wrong(stored: str) -> str:
    """The 0.4 word of a stored verdict: `yes` → `right`, `no` → `wrong`."""
    return "right" if stored == "yes" else "wrong"


def _field(where: str, name: str | int) -> str:
    return f"{where}/{name}" if where else str(name)


def check_reason(value: Any, where: str) -> str | None:
    """A reason: absent, or a string of at most 4,000 characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed(where, "must be a string")
    if len(value) > MAX_REASON:
        raise ValidationFailed(where, f"is {len(value)} characters; at most {MAX_REASON}")
    return value


def check_pointer(value: Any, where: str) -> str:
    """A JSON pointer's text (RFC 6901); `""` is the whole output."""
    if not isinstance(value, str):
        raise ValidationFailed(where, "must be a JSON pointer string, such as /output/articles/0")
    try:
        parse_pointer(value)
    except ValueError as error:
        raise ValidationFailed(where, str(error)) from None
    return value


def check_item(
    data: Any, where: str, *, words: Sequence[str] = RIGHT_WRONG, pointer_required: bool = True
) -> CorrectedItem:
    """One item's verdict: `key`, `pointer`, `rank` ≥ 0, `verdict` in `words`, `reason`."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(where, "must be an object with key, pointer, rank and verdict")
    extra = set(data) - {"key", "pointer", "rank", "verdict", "reason"}
    if extra:
        raise ValidationFailed(_field(where, sorted(extra)[0]), "is not a known field")
    key = data.get("key")
    if not isinstance(key, str) or not key:
        raise ValidationFailed(_field(where, "key"), "is required: the item's stable id")
    pointer = data.get("pointer")
    if pointer is not None or pointer_required:
        if pointer is None:
            raise ValidationFailed(_field(where, "pointer"), "is required")
        pointer = check_pointer(pointer, _field(where, "pointer"))
    rank = data.get("rank")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise ValidationFailed(_field(where, "rank"), "must be an integer, 0 or more")
    verdict = data.get("verdict")
    if not isinstance(verdict, str) or verdict not in words:
        raise ValidationFailed(_field(where, "verdict"), f"must be one of {', '.join(words)}")
    reason = check_reason(data.get("reason"), _field(where, "reason"))
    return CorrectedItem(key, pointer, rank, stored_verdict(verdict), reason)


def check_items(data: Any, where: str = "items") -> list[CorrectedItem]:
    """A correction's items: a list of items with distinct keys."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValidationFailed(where, "must be a list of items")
    items = [check_item(entry, _field(where, i)) for i, entry in enumerate(data)]
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.key in seen:
            raise ValidationFailed(_field(_field(where, i), "key"), f"{item.key!r} is given twice")
        seen.add(item.key)
    return items


def check_decisions(data: Any, where: str = "decisions") -> dict[str, Any]:
    """`{verdict: right}`, or `{verdict: wrong}` with `shouldCall` and/or `mustNotCall`."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(where, "must be an object with a verdict")
    extra = set(data) - {"verdict", "shouldCall", "mustNotCall"}
    if extra:
        raise ValidationFailed(_field(where, sorted(extra)[0]), "is not a known field")
    verdict = data.get("verdict")
    if verdict not in RIGHT_WRONG:
        raise ValidationFailed(_field(where, "verdict"), "must be one of right, wrong")
    should = _should_call(data.get("shouldCall"), _field(where, "shouldCall"))
    must_not = _must_not_call(data.get("mustNotCall"), _field(where, "mustNotCall"))
    if verdict == "right":
        if should or must_not:
            raise ValidationFailed(where, "right takes no shouldCall or mustNotCall")
        return {"verdict": "right"}
    if not should and not must_not:
        raise ValidationFailed(where, "wrong needs shouldCall or mustNotCall (or both)")
    for i, call in enumerate(should):
        if call["toolId"] in must_not:
            raise ValidationFailed(
                _field(_field(_field(where, "shouldCall"), i), "toolId"),
                f"{call['toolId']} is also in mustNotCall",
            )
    decisions: dict[str, Any] = {"verdict": "wrong"}
    if should:
        decisions["shouldCall"] = should
    if must_not:
        decisions["mustNotCall"] = must_not
    return decisions


def _should_call(data: Any, where: str) -> list[dict[str, Any]]:
    """`[{toolId, args?}]`, each tool id a non-empty string and args an object."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValidationFailed(where, "must be a list of {toolId, args?}")
    calls = []
    for i, entry in enumerate(data):
        at = _field(where, i)
        if not isinstance(entry, Mapping) or set(entry) - {"toolId", "args"}:
            raise ValidationFailed(at, "must be an object with toolId and optional args")
        tool_id = entry.get("toolId")
        if not isinstance(tool_id, str) or not tool_id:
            raise ValidationFailed(_field(at, "toolId"), "is required: a tool id")
        call: dict[str, Any] = {"toolId": tool_id}
        if entry.get("args") is not None:
            if not isinstance(entry["args"], Mapping):
                raise ValidationFailed(_field(at, "args"), "must be an object")
            call["args"] = dict(entry["args"])
        calls.append(call)
    return calls


def _must_not_call(data: Any, where: str) -> list[str]:
    """`[toolId]`, each a non-empty string."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValidationFailed(where, "must be a list of tool ids")
    for i, tool_id in enumerate(data):
        if not isinstance(tool_id, str) or not tool_id:
            raise ValidationFailed(_field(where, i), "must be a tool id")
    return list(data)


def check_answer(data: Any, where: str = "answer") -> dict[str, Any]:
    """`{verdict: right}`, or `{verdict: wrong}` with `shouldSay` and/or `why`."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(where, "must be an object with a verdict")
    extra = set(data) - {"verdict", "shouldSay", "why"}
    if extra:
        raise ValidationFailed(_field(where, sorted(extra)[0]), "is not a known field")
    verdict = data.get("verdict")
    if verdict not in RIGHT_WRONG:
        raise ValidationFailed(_field(where, "verdict"), "must be one of right, wrong")
    words = {
        name: check_reason(data.get(name), _field(where, name)) for name in ("shouldSay", "why")
    }
    given = {name: text for name, text in words.items() if text}
    if verdict == "right":
        if given:
            raise ValidationFailed(where, "right takes no shouldSay or why")
        return {"verdict": "right"}
    if not given:
        raise ValidationFailed(where, "wrong needs shouldSay or why (or both)")
    return {"verdict": "wrong", **given}


def check_status(value: Any, where: str = "status") -> str:
    """A correction's status: open, fixed, with-owner, wont-fix or removed."""
    if value not in STATUSES:
        raise ValidationFailed(where, f"must be one of {', '.join(STATUSES)}")
    return str(value)


def check_tools(decisions: Mapping[str, Any], tool_ids: Collection[str], where: str) -> None:
    """Refuse a `shouldCall` tool the agent does not have, naming its field."""
    for i, call in enumerate(decisions.get("shouldCall") or []):
        if call["toolId"] not in tool_ids:
            raise ValidationFailed(
                f"{where}/shouldCall/{i}/toolId",
                f"{call['toolId']} is not one of the agent's tools ({', '.join(sorted(tool_ids))})",
            )


def item_value(output: Any, pointer: str, where: str) -> Any:
    """The value `pointer` names in a run's output; 400 `item-not-found` when it names none."""
    try:
        return resolve(output, pointer)
    except LookupError as error:
        raise ValidationFailed(
            where, f"resolves to nothing in the run's output: {error}", code="item-not-found"
        ) from None


def check_key_at(output: Any, item: CorrectedItem, where: str) -> None:
    """400 when `item.pointer` names an item of the output whose key isn't `item.key`.

    Scores find a verdict's item by its key, so a typo in either would make a wrong case.
    """
    if item.pointer is None:
        return
    found = item_at(output, item.pointer)
    if found is not None and found.key != item.key:
        raise ValidationFailed(
            where,
            f"{item.pointer} is item {found.key} in the run's output, not {item.key}: "
            "give the key and pointer of the same item",
            key=item.key,
            pointer=item.pointer,
            found_key=found.key,
        )


def may_assert(
    assertable_by: Mapping[str, Any] | None, kind: str, principal_id: str, role: str = "admin"
) -> bool:
    """Whether a principal may use a class: every part its `assertableBy` sets must hold."""
    if not assertable_by:
        return True
    least = assertable_by.get("minReviewerRole")
    if least and REVIEWER_ROLES.index(role) < REVIEWER_ROLES.index(least):
        return False
    kinds = assertable_by.get("principalKinds")
    if kinds and kind not in kinds:
        return False
    ids = assertable_by.get("principalIds")
    return not ids or principal_id in ids


def class_applies(scope: Mapping[str, Any], project_id: str, agent_id: str | None) -> bool:
    """Whether a class of this scope applies to a run of that project and agent."""
    kind = scope.get("kind")
    if kind == "tenant":
        return True
    if scope.get("projectId") != project_id:
        return False
    return kind == "project" or scope.get("agentId") == agent_id


def erased_answer(answer: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An answer with its words (`shouldSay`, `why`) cleared by an erasure."""
    if answer is None:
        return None
    return {k: v for k, v in answer.items() if k not in ("shouldSay", "why")}


def shown_items(
    verdicts: Iterable[Mapping[str, Any]], replaced_at: str | None
) -> list[Mapping[str, Any]]:
    """The verdicts a correction shows, by rank: its live ones, or, once replaced, those
    live when it was replaced (replacing ends them at `replaced_at`)."""
    shown = [
        v
        for v in verdicts
        if v["unregistered_at"] is None
        or (replaced_at is not None and v["unregistered_at"] >= replaced_at)
    ]
    latest: dict[str, Mapping[str, Any]] = {}
    for verdict in sorted(shown, key=lambda v: (v["created_at"], v["id"])):
        latest[verdict["item_key"]] = verdict
    return sorted(
        latest.values(),
        key=lambda v: (v["rank"] is None, v["rank"] or 0, v["created_at"], v["id"]),
    )
