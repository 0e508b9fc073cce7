"""How an eval suite built from judgments (0.2/0.3) chooses its runs and sums their verdicts
up: one `JudgedCase` per judged run, its items' weighted sums and what it should have done.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .expectations import Decisions, ExpectedCall
from .json import JSON, JSONObject
from .test_sets import ranked

MAX_SUITE_CASES = 1000
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
    subject: Mapping[str, JSON]
    input: JSON = None
    context: Mapping[str, JSON] | None = None
    output: JSON = None
    items: tuple[ItemSummary, ...] = ()
    corrections: tuple[ShouldHaveDone, ...] | None = None
    erased: bool = False


def case_input(run_input: JSON) -> JSON:
    """A case's input: the user's message for a plain agent turn, else the input as given."""
    if isinstance(run_input, dict) and isinstance(run_input.get("userMessage"), str):
        rest = {k: v for k, v in run_input.items() if k != "userMessage" and v}
        if not rest:
            return run_input["userMessage"]
    return run_input


def case_context(context: JSON, tool_env: JSON = None) -> JSONObject | None:
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
    segments: Sequence[Mapping[str, JSON]] | None
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
    run_segments: Sequence[Mapping[str, JSON]] | None, wanted: Sequence[Mapping[str, str]]
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
