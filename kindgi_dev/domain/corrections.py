"""The rules of a correction, pure: what a body may say, who may use a judge class, and words.

A correction (0.4) is one corrector's verdicts on the items of one run, plus optional
`decisions` and `answer`; each verdict is what 0.1 calls a judgment. 0.4 says
`right`/`wrong` where 0.1 says `yes`/`no`; the store keeps `yes`/`no`.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .bounds import ARGS_DEPTH, check_rank, check_value
from .errors import ValidationFailed
from .expectations import Answer, Decisions, ExpectedCall, GivenItem
from .items import item_at
from .json import JSON
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

    @property
    def principal(self) -> Principal:
        """The principal alone, as an answer names who corrected."""
        return Principal(self.kind, self.id)


@dataclass(frozen=True)
class Principal:
    """Who made a correction, gave a verdict, or added or retired a case: a user or a
    service, by id."""

    kind: str
    id: str


@dataclass(frozen=True)
class Subject:
    """What a run ran: an agent or a flow, at a version."""

    kind: str
    id: str
    version: str


class AssertedClass(NamedTuple):
    """The judge class a verdict is given under (None: none), and whether it is restricted."""

    class_id: str | None
    restricted: bool


@dataclass(frozen=True)
class ClassScope:
    """Where a judge class applies: the tenant, one project, or one agent in one project."""

    kind: str
    project_id: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True)
class AssertableBy:
    """Who may use a restricted judge class: every part that is set must hold."""

    min_reviewer_role: str | None = None
    principal_kinds: tuple[str, ...] | None = None
    principal_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CorrectedItem:
    """One item's verdict as checked: the stored verdict is always `yes` or `no`."""

    key: str
    pointer: str | None
    rank: int | None
    verdict: str
    reason: str | None


@dataclass(frozen=True)
class StoredCorrection:
    """A correction as it is kept: one corrector's correction of one run, the judge class it
    was given under, what the run should have done and said, and whether it was replaced
    (by which, when) or its words erased. Its verdicts are `StoredVerdict`s."""

    id: str
    tenant_id: str
    project_id: str
    run_id: str
    subject: Subject
    corrector: Corrector
    status: str
    created_at: str
    updated_at: str
    judge_class_id: str | None = None
    restricted: bool = False
    decisions: Decisions | None = None
    answer: Answer | None = None
    replaced_by: str | None = None
    replaced_at: str | None = None
    erased_at: str | None = None


@dataclass(frozen=True)
class StoredVerdict:
    """A verdict (0.1's judgment) as it is kept: the item it is about, with the value its
    pointer named when it was given, and its correction's run, subject and corrector. Live
    while `unregistered_at` and `superseded_by` are both None."""

    id: str
    correction_id: str
    tenant_id: str
    project_id: str
    run_id: str
    subject: Subject
    asserted_by: Corrector
    item: CorrectedItem
    created_at: str
    judge_class_id: str | None = None
    restricted: bool = False
    item_value: JSON = None
    unregistered_at: str | None = None
    superseded_by: str | None = None


class Keep(enum.Enum):
    """A part of a correction an update leaves as it is."""

    KEEP = "keep"


KEEP = Keep.KEEP


def stored_verdict(verdict: str) -> str:
    """`yes`/`no` for a 0.4 `right`/`wrong` (or a 0.1 verdict as it is)."""
    return _STORED[verdict]


def right_wrong(stored: str) -> str:
    """The 0.4 word of a stored verdict: `yes` → `right`, `no` → `wrong`."""
    return "right" if stored == "yes" else "wrong"


def _field(where: str, name: str | int) -> str:
    return f"{where}/{name}" if where else str(name)


def check_reason(value: JSON, where: str) -> str | None:
    """A reason: absent, or a string of at most 4,000 characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed(where, "must be a string")
    if len(value) > MAX_REASON:
        raise ValidationFailed(where, f"is {len(value)} characters; at most {MAX_REASON}")
    return value


def check_pointer(value: JSON, where: str) -> str:
    """A JSON pointer's text (RFC 6901); `""` is the whole output."""
    if not isinstance(value, str):
        raise ValidationFailed(where, "must be a JSON pointer string, such as /output/articles/0")
    try:
        parse_pointer(value)
    except ValueError as error:
        raise ValidationFailed(where, str(error)) from None
    return value


def check_item(
    item: GivenItem,
    where: str,
    *,
    words: Sequence[str] = RIGHT_WRONG,
    pointer_required: bool = True,
) -> CorrectedItem:
    """One item's verdict: a `key`, a `pointer`, a `rank` (0 to `MAX_RANK`), `verdict` in
    `words`, `reason`."""
    if not isinstance(item.key, str) or not item.key:
        raise ValidationFailed(_field(where, "key"), "is required: the item's stable id")
    pointer = item.pointer
    if pointer is not None or pointer_required:
        if pointer is None:
            raise ValidationFailed(_field(where, "pointer"), "is required")
        pointer = check_pointer(pointer, _field(where, "pointer"))
    rank = check_rank(item.rank, _field(where, "rank"))
    if item.verdict not in words:
        raise ValidationFailed(_field(where, "verdict"), f"must be one of {', '.join(words)}")
    reason = check_reason(item.reason, _field(where, "reason"))
    return CorrectedItem(item.key, pointer, rank, stored_verdict(item.verdict), reason)


def check_items(items: Sequence[GivenItem], where: str = "items") -> list[CorrectedItem]:
    """A correction's items, with distinct keys."""
    checked = [check_item(item, _field(where, i)) for i, item in enumerate(items)]
    seen: set[str] = set()
    for i, item in enumerate(checked):
        if item.key in seen:
            raise ValidationFailed(_field(_field(where, i), "key"), f"{item.key!r} is given twice")
        seen.add(item.key)
    return checked


def check_decisions(decisions: Decisions, where: str = "decisions") -> Decisions:
    """`right`, or `wrong` with `shouldCall` and/or `mustNotCall`; empty parts are dropped."""
    if decisions.verdict not in RIGHT_WRONG:
        raise ValidationFailed(_field(where, "verdict"), "must be one of right, wrong")
    should = _should_call(decisions.should_call or (), _field(where, "shouldCall"))
    must_not = _must_not_call(decisions.must_not_call or (), _field(where, "mustNotCall"))
    if decisions.verdict == "right":
        if should or must_not:
            raise ValidationFailed(where, "right takes no shouldCall or mustNotCall")
        return Decisions("right")
    if not should and not must_not:
        raise ValidationFailed(where, "wrong needs shouldCall or mustNotCall (or both)")
    for i, call in enumerate(should):
        if call.tool_id in must_not:
            raise ValidationFailed(
                _field(_field(_field(where, "shouldCall"), i), "toolId"),
                f"{call.tool_id} is also in mustNotCall",
            )
    return Decisions("wrong", should or None, must_not or None)


def _should_call(calls: Sequence[ExpectedCall], where: str) -> tuple[ExpectedCall, ...]:
    """Each call's tool id a non-empty string, and its args an object when given, nested and
    numbered as a request's may be (`bounds.check_value`)."""
    for i, call in enumerate(calls):
        at = _field(where, i)
        if not isinstance(call.tool_id, str) or not call.tool_id:
            raise ValidationFailed(_field(at, "toolId"), "is required: a tool id")
        if call.args is not None and not isinstance(call.args, Mapping):
            raise ValidationFailed(_field(at, "args"), "must be an object")
        check_value(call.args, ARGS_DEPTH, _field(at, "args"))
    return tuple(calls)


def _must_not_call(tool_ids: Sequence[str], where: str) -> tuple[str, ...]:
    """Each tool id a non-empty string."""
    for i, tool_id in enumerate(tool_ids):
        if not isinstance(tool_id, str) or not tool_id:
            raise ValidationFailed(_field(where, i), "must be a tool id")
    return tuple(tool_ids)


def check_answer(answer: Answer, where: str = "answer") -> Answer:
    """`right`, or `wrong` with `shouldSay` and/or `why`; empty words are dropped."""
    if answer.verdict not in RIGHT_WRONG:
        raise ValidationFailed(_field(where, "verdict"), "must be one of right, wrong")
    should_say = check_reason(answer.should_say, _field(where, "shouldSay")) or None
    why = check_reason(answer.why, _field(where, "why")) or None
    if answer.verdict == "right":
        if should_say or why:
            raise ValidationFailed(where, "right takes no shouldSay or why")
        return Answer("right")
    if not should_say and not why:
        raise ValidationFailed(where, "wrong needs shouldSay or why (or both)")
    return Answer("wrong", should_say, why)


def check_status(value: JSON, where: str = "status") -> str:
    """A correction's status: open, fixed, with-owner, wont-fix or removed."""
    if value not in STATUSES:
        raise ValidationFailed(where, f"must be one of {', '.join(STATUSES)}")
    return str(value)


def check_tools(decisions: Decisions, tool_ids: Collection[str], where: str) -> None:
    """Refuse a `shouldCall` tool the agent does not have, naming its field."""
    for i, call in enumerate(decisions.should_call or ()):
        if call.tool_id not in tool_ids:
            raise ValidationFailed(
                f"{where}/shouldCall/{i}/toolId",
                f"{call.tool_id} is not one of the agent's tools ({', '.join(sorted(tool_ids))})",
            )


def item_value(output: JSON, pointer: str, where: str) -> JSON:
    """The value `pointer` names in a run's output; 400 `item-not-found` when it names none."""
    try:
        return resolve(output, pointer)
    except LookupError as error:
        raise ValidationFailed(
            where, f"resolves to nothing in the run's output: {error}", code="item-not-found"
        ) from None


def check_key_at(output: JSON, item: CorrectedItem, where: str) -> None:
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
    assertable_by: AssertableBy | None, kind: str, principal_id: str, role: str = "admin"
) -> bool:
    """Whether a principal may use a class: every part its `assertableBy` sets must hold."""
    if assertable_by is None:
        return True
    least = assertable_by.min_reviewer_role
    if least and REVIEWER_ROLES.index(role) < REVIEWER_ROLES.index(least):
        return False
    kinds = assertable_by.principal_kinds
    if kinds and kind not in kinds:
        return False
    ids = assertable_by.principal_ids
    return not ids or principal_id in ids


def class_applies(scope: ClassScope, project_id: str, agent_id: str | None) -> bool:
    """Whether a class of this scope applies to a run of that project and agent."""
    if scope.kind == "tenant":
        return True
    if scope.project_id != project_id:
        return False
    return scope.kind == "project" or scope.agent_id == agent_id


def shown_items(verdicts: Iterable[StoredVerdict], replaced_at: str | None) -> list[StoredVerdict]:
    """The verdicts a correction shows, by rank: its live ones, or, once replaced, those
    live when it was replaced (replacing ends them at `replaced_at`)."""
    shown = [
        v
        for v in verdicts
        if v.unregistered_at is None
        or (replaced_at is not None and v.unregistered_at >= replaced_at)
    ]
    latest: dict[str, StoredVerdict] = {}
    for verdict in sorted(shown, key=lambda v: (v.created_at, v.id)):
        latest[verdict.item.key] = verdict
    return sorted(
        latest.values(),
        key=lambda v: (v.item.rank is None, v.item.rank or 0, v.created_at, v.id),
    )
