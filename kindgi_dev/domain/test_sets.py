"""Which corrections are cases and what a case expects, as `TestCase` records; the registry's
entries. How a judged suite sums verdicts up is `judged_suites`.

Pure rules shared by the agent's test set (0.4), its frozen versions, and the `/v1/test-sets`
registry. The store applies the same case rules in SQL for paging; `exclusion` is their one
statement in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from .bounds import ARGS_DEPTH, check_rank, check_value
from .corrections import Principal
from .errors import ValidationFailed
from .expectations import Answer, Decisions, GivenItem
from .json import JSON, JSONObject
from .pointers import parse_pointer, resolve
from .semver import is_semver

CASE_STATUSES = ("open", "fixed", "with-owner")
"""Statuses whose corrections are cases: Won't fix and Removed ones are not."""
CASE_KINDS = ("correction", "hand")
HAND_CASE_PREFIX = "case-"
TEST_SET_SEPARATOR = "~"
_FROZEN_VERSION = re.compile(r"([1-9][0-9]*)\.0\.0")
_WORDS = {"yes": "right", "no": "wrong"}


def set_id_of(agent_id: str, project_id: str) -> str:
    """The id of an agent's test set in a project: `<agentId>~<projectId>` (URL-safe)."""
    return f"{agent_id}{TEST_SET_SEPARATOR}{project_id}"


def version_label(number: int) -> str:
    """The one semver spelling of frozen version N: `N.0.0`."""
    return f"{number}.0.0"


def version_number(label: str) -> int | None:
    """N of a frozen version spelled `N.0.0`, or None for any other text."""
    match = _FROZEN_VERSION.fullmatch(label)
    return int(match.group(1)) if match else None


def parse_set_id(text: str) -> tuple[str, str] | None:
    """(agent id, project id) of an agent's test set id, or None for any other id."""
    agent_id, sep, project_id = text.rpartition(TEST_SET_SEPARATOR)
    if not sep or not agent_id or not project_id:
        return None
    return agent_id, project_id


@dataclass(frozen=True)
class CorrectionFacts:
    """What deciding whether one correction is a case needs (`exclusion` reads them), with
    its tenant, project and subject."""

    id: str
    tenant_id: str
    project_id: str
    subject_kind: str
    subject_id: str
    status: str
    replaced_by: str | None
    erased_at: str | None
    on_replay: bool
    has_expectation: bool


def exclusion(correction: CorrectionFacts) -> str | None:
    """Why a correction is not a case of its agent's test set, or None when it is one."""
    if correction.replaced_by:
        return "a later correction replaced it"
    if correction.erased_at:
        return "an erasure cleared its words"
    if correction.on_replay:
        return "it corrects a comparison's replay"
    if correction.status not in CASE_STATUSES:
        return f"its status is {correction.status}"
    if not correction.has_expectation:
        return "it leaves nothing to check"
    return None


def is_expert(kind: str, restricted: bool | None) -> bool:
    """A hand case is always an expert's; a correction's case when made under a restricted group."""
    return kind == "hand" or bool(restricted)


def expected_item(
    key: str, pointer: str | None, rank: int | None, verdict: str, reason: str | None
) -> GivenItem:
    """One corrected item as a case expects it, from its verdict's `yes`/`no`: right or
    wrong, and why (an empty reason is none)."""
    return GivenItem(
        key=key,
        pointer=pointer,
        verdict=_WORDS.get(verdict, verdict),
        rank=rank,
        reason=reason or None,
    )


class Ranked(Protocol):
    """Anything listed in rank order: an expected item, an item's summary."""

    @property
    def rank(self) -> int | None:
        """Its place in the run's list, or None when it has none."""
        ...


R = TypeVar("R", bound=Ranked)


def ranked(items: Iterable[R]) -> list[R]:
    """Items in list order: by rank, those without one last, otherwise as given."""
    indexed = list(enumerate(items))
    indexed.sort(key=lambda pair: (pair[1].rank is None, pair[1].rank or 0, pair[0]))
    return [item for _, item in indexed]


@dataclass(frozen=True)
class Expectation:
    """A case's `expect`: a part for each part the correction gave a verdict on (None: none)."""

    items: tuple[GivenItem, ...] | None = None
    decisions: Decisions | None = None
    answer: Answer | None = None


@dataclass(frozen=True)
class Retirement:
    """When, by whom and why a case was retired."""

    reason: str
    by: Principal
    at: str


@dataclass(frozen=True)
class SetCaseCounts:
    """How many cases an agent's test set has (`active`), and how many were retired."""

    active: int
    retired: int


@dataclass(frozen=True)
class TestCase:
    """A case of an agent's test set: a correction's (with its id) or a hand one (`case-…`)."""

    id: str
    kind: str
    project_id: str
    run_id: str
    made_on: str
    expect: Expectation
    expert: bool
    added_by: Principal
    added_at: str
    updated_at: str
    judge_class_id: str | None = None
    """The corrector group (judge class) the correction was made under, when there was one."""
    retired: Retirement | None = None


def expect_of(
    items: Sequence[GivenItem], decisions: Decisions | None, answer: Answer | None
) -> Expectation:
    """A case's `expect`: a part for each part the correction gave a verdict on."""
    return Expectation(tuple(ranked(items)) if items else None, decisions, answer)


@dataclass(frozen=True)
class CaseRow:
    """A case as the store keeps it: a correction that is a case (`restricted`, its group)
    or one added by hand (its `tenant_id`, `agent_id` and `items`), what it expects as
    kept (JSON: the store's `expectations` reads it), and its retirement."""

    id: str
    project_id: str
    run_id: str
    made_on: str
    added_by_kind: str
    added_by_id: str
    created_at: str
    updated_at: str
    restricted: bool | None = None
    judge_class_id: str | None = None
    decisions: JSON = None
    answer: JSON = None
    items: JSON = None
    tenant_id: str | None = None
    agent_id: str | None = None
    retired: Retirement | None = None


def case_of(
    kind: str,
    row: CaseRow,
    items: Sequence[GivenItem],
    decisions: Decisions | None = None,
    answer: Answer | None = None,
) -> TestCase:
    """A case from its row: a correction's (with the correction's id) or a hand one."""
    return TestCase(
        id=row.id,
        kind=kind,
        project_id=row.project_id,
        run_id=row.run_id,
        made_on=row.made_on,
        expect=expect_of(items, decisions, answer),
        expert=is_expert(kind, row.restricted),
        added_by=Principal(row.added_by_kind, row.added_by_id),
        added_at=row.created_at,
        updated_at=row.updated_at,
        judge_class_id=row.judge_class_id or None,
        retired=row.retired,
    )


def with_retirement(case: TestCase, retirement: Mapping[str, object] | None) -> TestCase:
    """The case, with when, by whom and why it was retired, when it was."""
    if retirement is None or retirement.get("reason") is None:
        return case
    by = Principal(str(retirement["by_kind"]), str(retirement["by_id"]))
    return replace(case, retired=Retirement(str(retirement["reason"]), by, str(retirement["at"])))


def check_expectation(
    items: Sequence[GivenItem],
    decisions: Decisions | None,
    answer: Answer | None,
    run_output: JSON,
) -> None:
    """400 unless a hand case's body expects something checkable of this run's output."""
    if not items and decisions is None and answer is None:
        raise ValidationFailed("items", "a case needs items, decisions or answer to expect")
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item.key in seen:
            raise ValidationFailed(f"items/{index}/key", f"{item.key!r} is given twice")
        seen.add(item.key)
        check_rank(item.rank, f"items/{index}/rank")
        pointer = item.pointer
        if pointer is None:
            continue
        try:
            parse_pointer(pointer)
            resolve(run_output, pointer)
        except (ValueError, LookupError) as error:
            raise ValidationFailed(f"items/{index}/pointer", str(error)) from None
    if decisions is not None:
        wants = decisions.should_call or decisions.must_not_call
        if decisions.verdict == "wrong" and not wants:
            raise ValidationFailed("decisions", "wrong decisions need shouldCall or mustNotCall")
        if decisions.verdict == "right" and wants:
            raise ValidationFailed("decisions", "right decisions take no shouldCall/mustNotCall")
        for index, call in enumerate(decisions.should_call or ()):
            check_value(call.args, ARGS_DEPTH, f"decisions/shouldCall/{index}/args")


REGISTRY_KINDS = (
    "accuracy",
    "pairwise",
    "regression",
    "human-review",
    "benchmark",
    "custom",
    "corrections",
)
"""The registry's closed `kind` enum (`corrections`: built from corrections of past runs)."""
_ENTRY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,199}")
ENTRY_ID_PATTERN = f"^{_ENTRY_ID.pattern}$"
"""A registry entry's id, as a JSON Schema `pattern`."""
"""A registry id; `~` too, so an agent's test set pushed from another runtime keeps its id."""


@dataclass(frozen=True)
class RegistryEntry:
    """A version of a `/v1/test-sets` registry entry; its `spec` is the publisher's JSON."""

    id: str
    tenant_id: str
    version: str
    kind: str
    spec: JSONObject
    description: str | None = None


def check_entry(entry: RegistryEntry, tenant_id: str) -> None:
    """400 unless a registry entry's top level holds: a dotted id, semver, the caller's tenant."""
    if not _ENTRY_ID.fullmatch(entry.id):
        raise ValidationFailed(
            "id", "must be letters, digits, '.', '_', '~' or '-', such as acme.picks"
        )
    if not is_semver(entry.version):
        raise ValidationFailed("version", f"must be a semver such as 1.0.0, not {entry.version!r}")
    if entry.kind not in REGISTRY_KINDS:
        raise ValidationFailed("kind", f"must be one of {', '.join(REGISTRY_KINDS)}")
    if not isinstance(entry.spec, dict):
        raise ValidationFailed("spec", "must be an object")
    if entry.tenant_id != tenant_id:
        raise ValidationFailed(
            "tenantId", "must be your own workspace's: cross-tenant publish is refused"
        )


def agent_set_entry(
    tenant_id: str,
    set_id: str,
    agent_id: str,
    project_id: str,
    version: str,
    cases: SetCaseCounts,
) -> RegistryEntry:
    """A frozen agent's test set as a `corrections` registry entry at `version`."""
    return RegistryEntry(
        id=set_id,
        tenant_id=tenant_id,
        version=version,
        kind="corrections",
        description=f"Agent {agent_id}'s test set in project {project_id}.",
        spec={
            "source": "agent",
            "agentId": agent_id,
            "projectId": project_id,
            "cases": {"active": cases.active, "retired": cases.retired},
        },
    )


def judged_suite_entry(
    suite_id: str,
    tenant_id: str,
    version: str,
    description: str | None,
    spec: Mapping[str, JSON],
) -> RegistryEntry:
    """A `judged` eval suite version (a test set built before) as a `corrections` entry."""
    return RegistryEntry(
        id=suite_id,
        tenant_id=tenant_id,
        version=version,
        kind="corrections",
        description=description,
        spec={**spec, "source": "judged-suite"},
    )
