"""Which corrections are cases, what a case expects, and how a judged suite sums verdicts up.

Pure rules shared by the agent's test set (0.4), its frozen versions, and the eval suites
built from judgments (0.2/0.3). The store applies the same case rules in SQL for paging;
`exclusion` is their one statement in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from .errors import ValidationFailed
from .expectations import Answer, Decisions, ExpectedCall, GivenItem
from .pointers import parse_pointer, resolve
from .semver import is_semver

CASE_STATUSES = ("open", "fixed", "with-owner")
"""Statuses whose corrections are cases: Won't fix and Removed ones are not."""
CASE_KINDS = ("correction", "hand")
HAND_CASE_PREFIX = "case-"
TEST_SET_SEPARATOR = "~"
MAX_SUITE_CASES = 1000
_FROZEN_VERSION = re.compile(r"([1-9][0-9]*)\.0\.0")
_WORDS = {"yes": "right", "no": "wrong"}
_CONTEXT_KEYS = (
    "history",
    "historyTruncated",
    "retrieved",
    "recalled",
    "sessionApproval",
    "flow",
    "toolEnv",
    "replayOf",
)


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


def exclusion(correction: Mapping[str, Any]) -> str | None:
    """Why a correction is not a case of its agent's test set, or None when it is one.

    Reads `status`, `replaced_by`, `erased_at`, `on_replay` and `has_expectation`.
    """
    if correction.get("replaced_by"):
        return "a later correction replaced it"
    if correction.get("erased_at"):
        return "an erasure cleared its words"
    if correction.get("on_replay"):
        return "it corrects a comparison's replay"
    if correction.get("status") not in CASE_STATUSES:
        return f"its status is {correction.get('status')}"
    if not correction.get("has_expectation"):
        return "it leaves nothing to check"
    return None


def is_expert(kind: str, restricted: bool | None) -> bool:
    """A hand case is always an expert's; a correction's case when made under a restricted group."""
    return kind == "hand" or bool(restricted)


def expected_item(verdict: Mapping[str, Any]) -> GivenItem:
    """One corrected item as a case expects it: key, pointer, rank, right/wrong and why."""
    word = verdict["verdict"]
    return GivenItem(
        key=verdict["item_key"],
        pointer=verdict.get("pointer"),
        verdict=_WORDS.get(word, word),
        rank=verdict.get("rank"),
        reason=verdict.get("reason") or None,
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
class Principal:
    """Who added or retired a case."""

    kind: str
    id: str


@dataclass(frozen=True)
class Retirement:
    """When, by whom and why a case was retired."""

    reason: str
    by: Principal
    at: str


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


def case_of(
    kind: str,
    row: Mapping[str, Any],
    items: Sequence[GivenItem],
    decisions: Decisions | None = None,
    answer: Answer | None = None,
) -> TestCase:
    """A case from its row: a correction's (with the correction's id) or a hand one."""
    return TestCase(
        id=row["id"],
        kind=kind,
        project_id=row["project_id"],
        run_id=row["run_id"],
        made_on=row["made_on"],
        expect=expect_of(items, decisions, answer),
        expert=is_expert(kind, row.get("restricted")),
        added_by=Principal(row["added_by_kind"], row["added_by_id"]),
        added_at=row["created_at"],
        updated_at=row["updated_at"],
        judge_class_id=row.get("judge_class_id") or None,
    )


def with_retirement(case: TestCase, retirement: Mapping[str, Any] | None) -> TestCase:
    """The case, with when, by whom and why it was retired, when it was."""
    if retirement is None or retirement.get("reason") is None:
        return case
    by = Principal(retirement["by_kind"], retirement["by_id"])
    return replace(case, retired=Retirement(retirement["reason"], by, retirement["at"]))


def check_expectation(
    items: Sequence[GivenItem],
    decisions: Decisions | None,
    answer: Answer | None,
    run_output: Any,
) -> None:
    """400 unless a hand case's body expects something checkable of this run's output."""
    if not items and decisions is None and answer is None:
        raise ValidationFailed("items", "a case needs items, decisions or answer to expect")
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item.key in seen:
            raise ValidationFailed(f"items/{index}/key", f"{item.key!r} is given twice")
        seen.add(item.key)
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


@dataclass(frozen=True)
class Judgment:
    """One counted verdict of a judged run, as a suite's case sums it up."""

    id: str
    item_key: str
    pointer: str | None
    rank: int | None
    verdict: str
    reason: str | None
    judge_class_id: str | None
    restricted: bool
    created_at: str


@dataclass(frozen=True)
class WeightedSums:
    """Weighted verdicts of one item: the yes weight, the whole weight, which verdicts."""

    yes_weight: float
    total_weight: float
    judgment_ids: tuple[str, ...]


@dataclass(frozen=True)
class JudgedReason:
    """Why one verdict was given, with its corrector group and whether it was restricted."""

    verdict: str
    reason: str
    judge_class_id: str | None
    restricted: bool


@dataclass(frozen=True)
class ItemSummary:
    """A suite case's item (`JudgedItemSummary`): its counts and weights, all verdicts and
    restricted ones only, and the reasons given, newest first."""

    key: str
    pointer: str | None
    rank: int | None
    yes: int
    no: int
    weighted: WeightedSums
    restricted: WeightedSums
    reasons: tuple[JudgedReason, ...]


def summarize_items(
    judgments: Sequence[Judgment], weights: Mapping[str, float]
) -> list[ItemSummary]:
    """A case's items from its verdicts, given newest first.

    A verdict weighs its class's weight (1 without a class); `restricted` sums only
    verdicts recorded while their class was restricted.
    """
    by_item: dict[str, list[Judgment]] = {}
    for judgment in judgments:
        by_item.setdefault(judgment.item_key, []).append(judgment)
    return ranked(_summary(found, weights) for found in by_item.values())


def _summary(judgments: Sequence[Judgment], weights: Mapping[str, float]) -> ItemSummary:
    """One item's summary from its verdicts (the first one names where the item is)."""
    first = judgments[0]
    return ItemSummary(
        key=first.item_key,
        pointer=first.pointer,
        rank=first.rank,
        yes=sum(1 for j in judgments if j.verdict == "yes"),
        no=sum(1 for j in judgments if j.verdict != "yes"),
        weighted=_sums(judgments, weights),
        restricted=_sums([j for j in judgments if j.restricted], weights),
        reasons=tuple(
            JudgedReason(j.verdict, j.reason, j.judge_class_id or None, j.restricted)
            for j in judgments
            if j.reason
        ),
    )


def _sums(judgments: Sequence[Judgment], weights: Mapping[str, float]) -> WeightedSums:
    """The yes and whole weights of some verdicts, added in order, and their ids."""
    yes_weight, total_weight = 0.0, 0.0
    for judgment in judgments:
        weight = weights.get(judgment.judge_class_id, 1.0) if judgment.judge_class_id else 1.0
        total_weight += weight
        yes_weight += weight if judgment.verdict == "yes" else 0
    return WeightedSums(yes_weight, total_weight, tuple(j.id for j in judgments))


@dataclass(frozen=True)
class DecidedCorrection:
    """A standing correction of a judged run that says what the run should have done."""

    id: str
    decisions: Decisions
    judge_class_id: str | None
    restricted: bool


@dataclass(frozen=True)
class ShouldHaveDone:
    """A suite case's `corrections` entry: the calls the run should have made, and not."""

    judgment_id: str
    verdict: str
    calls: tuple[ExpectedCall, ...]
    not_called: tuple[str, ...]
    judge_class_id: str | None
    restricted: bool


def decision_corrections(
    corrections: Iterable[DecidedCorrection], called: Sequence[str]
) -> list[ShouldHaveDone]:
    """A case's `corrections`: each one saying what the run should have done.

    `wrong`: the tools it should have called and must not call; `right`: the tools the
    run called (`called`, in order), by name.
    """
    found = []
    for correction in corrections:
        decisions = correction.decisions
        right = decisions.verdict == "right"
        calls = (
            tuple(ExpectedCall(tool_id) for tool_id in dict.fromkeys(called))
            if right
            else tuple(decisions.should_call or ())
        )
        found.append(
            ShouldHaveDone(
                judgment_id=correction.id,
                verdict=decisions.verdict,
                calls=calls,
                not_called=() if right else tuple(decisions.must_not_call or ()),
                judge_class_id=correction.judge_class_id or None,
                restricted=correction.restricted,
            )
        )
    return found


@dataclass(frozen=True)
class JudgedCase:
    """A built suite's case (`JudgedEvalCase`): the run as judged, its items' summaries and
    what it should have done (None: no correction said); an erased run's keeps its subject."""

    case_id: str
    subject: Mapping[str, Any]
    input: Any = None
    context: Mapping[str, Any] | None = None
    output: Any = None
    items: tuple[ItemSummary, ...] = ()
    corrections: tuple[ShouldHaveDone, ...] | None = None
    erased: bool = False


def case_input(run_input: Any) -> Any:
    """A case's input: the user's message for a plain agent turn, else the input as given."""
    if isinstance(run_input, dict) and isinstance(run_input.get("userMessage"), str):
        rest = {k: v for k, v in run_input.items() if k != "userMessage" and v}
        if not rest:
            return run_input["userMessage"]
    return run_input


def case_context(context: Any, tool_env: Any = None) -> dict[str, Any] | None:
    """A case's `JudgedRunContext`: what the turn had, and the env its tools were sent."""
    found = dict(context) if isinstance(context, dict) else {}
    if tool_env and "toolEnv" not in found:
        found["toolEnv"] = tool_env
    kept = {k: found[k] for k in _CONTEXT_KEYS if found.get(k) is not None}
    return kept or None


@dataclass(frozen=True)
class JudgedRun:
    """What selecting a judged run needs: when first judged, how many counted verdicts, where."""

    run_id: str
    first_judged_at: str
    judgments: int
    segments: Sequence[Mapping[str, Any]] | None
    agent_version: str | None


@dataclass(frozen=True)
class BuildFilters:
    """The narrowing of a suite build; times in wire form (`…Z`, milliseconds)."""

    agent_version: str | None = None
    since: str | None = None
    until: str | None = None
    min_judgments: int = 1
    segments: Sequence[Mapping[str, str]] = ()


def segments_match(
    run_segments: Sequence[Mapping[str, Any]] | None, wanted: Sequence[Mapping[str, str]]
) -> bool:
    """Whether a run started at or below a segment path (a run with none is in none)."""
    if not wanted:
        return True
    if not run_segments or len(run_segments) < len(wanted):
        return False
    return all(
        run_segments[i].get("key") == want["key"] and run_segments[i].get("value") == want["value"]
        for i, want in enumerate(wanted)
    )


def run_selected(run: JudgedRun, filters: BuildFilters) -> bool:
    """Whether a judged run becomes a case under the build's filters."""
    if filters.agent_version and run.agent_version != filters.agent_version:
        return False
    if filters.since and run.first_judged_at < filters.since:
        return False
    if filters.until and run.first_judged_at >= filters.until:
        return False
    if run.judgments < max(filters.min_judgments, 1):
        return False
    return segments_match(run.segments, filters.segments)


def select_runs(runs: Iterable[JudgedRun], filters: BuildFilters) -> tuple[list[JudgedRun], bool]:
    """The runs a build takes, newest first judged first, at most 1000; and whether more matched."""
    chosen = [run for run in runs if run_selected(run, filters)]
    chosen.sort(key=lambda run: (run.first_judged_at, run.run_id), reverse=True)
    return chosen[:MAX_SUITE_CASES], len(chosen) > MAX_SUITE_CASES


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
"""A registry id; `~` too, so an agent's test set pushed from another runtime keeps its id."""


@dataclass(frozen=True)
class RegistryEntry:
    """A version of a `/v1/test-sets` registry entry; its `spec` is the publisher's JSON."""

    id: str
    tenant_id: str
    version: str
    kind: str
    spec: dict[str, Any]
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
    cases: Mapping[str, int],
) -> RegistryEntry:
    """A frozen agent's test set as a `corrections` registry entry at `version`."""
    return RegistryEntry(
        id=set_id,
        tenant_id=tenant_id,
        version=version,
        kind="corrections",
        description=f"Agent {agent_id}'s test set in project {project_id}.",
        spec={"source": "agent", "agentId": agent_id, "projectId": project_id, "cases": cases},
    )


def judged_suite_entry(
    suite_id: str,
    tenant_id: str,
    version: str,
    description: str | None,
    spec: Mapping[str, Any],
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
