"""An eval run's result on the wire: the comparison's models, and the answer that writes
its cases a page at a time.

The services hand over `domain.results` records; these models give them the contract's
camelCase shape (`ComparisonCaseResult`, `ComparisonMetric`, `JudgedComparisonResult`),
for the answers, the event stream (`api/eval_events.py`) and the console alike.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.responses import StreamingResponse

from ..domain.json import JSON
from ..domain.results import CaseResult, ComparisonResult
from .baselines import ComparisonBaseline, ReplayCountAnswer
from .eval_verdicts import FlakyCasesAnswer, PairedComparison
from .responses import dumps
from .routing import shape
from .run_cost import ComparisonCost
from .wire import OpenJson, OpenObject, WholeNumber, WireModel


def _nulls(data: object, *names: str) -> object:
    """Record data with these fields present (as null when the record has none)."""
    if not isinstance(data, dict):
        return data
    return {**dict.fromkeys(names), **data}


class ScoreTotals(WireModel):
    """Weighted verdicts: the `yes` weight of the total."""

    yes_weight: WholeNumber
    total_weight: WholeNumber


class FreshTotals(ScoreTotals):
    """The verdicts given on the replay itself, and on how many items."""

    items: int


class CaseScoreAnswer(WireModel):
    """One output's weighted verdicts, item counts and top-k sums."""

    model_config = ConfigDict(title="CaseScore")

    yes_weight: WholeNumber
    total_weight: WholeNumber
    items: int
    judged_items: int
    top_k: ScoreTotals
    fresh: FreshTotals | None = None

    @model_validator(mode="before")
    @classmethod
    def _nested(cls, data: object) -> object:
        """A `metrics.CaseScore`'s flat sums, nested as the wire has them."""
        if not isinstance(data, dict) or "top_k_yes" not in data:
            return data
        score = {
            "yes_weight": data["yes_weight"],
            "total_weight": data["total_weight"],
            "items": data["items"],
            "judged_items": data["judged_items"],
            "top_k": {"yes_weight": data["top_k_yes"], "total_weight": data["top_k_total"]},
        }
        if data.get("fresh_items"):
            score["fresh"] = {
                "yes_weight": data["fresh_yes"],
                "total_weight": data["fresh_total"],
                "items": data["fresh_items"],
            }
        return score


class CorrectionCheckAnswer(WireModel):
    """One checked part of a case: whether every repetition passed it."""

    part: str
    passed: bool = Field(alias="pass")
    repetitions_passed: int
    repetitions: int
    judgment_id: str | None = None


class DifferenceAnswer(WireModel):
    """How a candidate differs from a checked part."""

    model_config = ConfigDict(title="Difference")

    kind: str
    tool_id: str | None = None
    field: str | None = None
    expected: OpenJson = None
    actual: OpenJson = None
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _values(cls, data: object) -> object:
        """A field's expected (and given) value shows even when it is null."""
        if not isinstance(data, dict):
            return data
        if data.get("kind") == "missing-field":
            return _nulls(data, "expected")
        if data.get("kind") == "field-value":
            return _nulls(data, "expected", "actual")
        return data


class CorrectionDifferenceAnswer(WireModel):
    """The first failing repetition's differences from a checked part."""

    part: str
    repetition: int
    differences: list[DifferenceAnswer]
    judgment_id: str | None = None


class ItemChangeAnswer(WireModel):
    """A corrected item kept or dropped, or a new item."""

    key: str
    rank_before: int | None = None
    pointer: str | None = None
    rank: int | None = None


class ChangesAnswer(WireModel):
    """What the candidate did with the corrected items."""

    model_config = ConfigDict(title="Changes")

    kept: list[ItemChangeAnswer]
    dropped: list[ItemChangeAnswer]
    new: list[ItemChangeAnswer]


class BaselineReplayAnswer(WireModel):
    """A version baseline's replays of a case (an extension, docs/api.md): the candidate's
    fields, for the baseline's side."""

    run_ids: list[str]
    scores: list[CaseScoreAnswer]
    changes: ChangesAnswer | None = None
    tools: list[OpenObject] | None = None
    diverged: bool
    refused_writes: int
    approval_skipped: bool
    stopped: OpenObject | None = None
    error: str | None = None
    corrections: list[CorrectionCheckAnswer] | None = None
    correction_differences: list[CorrectionDifferenceAnswer] | None = None


class ComparisonCaseResult(WireModel):
    """One case compared: the recorded run's score (a version baseline's first repetition's,
    with all it did in `baselineReplay`) beside each repetition's. `passedAll` (pass^n),
    `passedAny`, `flaky`, `passedBefore`, `errored` and `baselineReplay` are kindgi dev's
    extension (docs/api.md), outside the contract's fields."""

    case_id: str
    run_ids: list[str]
    baseline: CaseScoreAnswer
    candidate: list[CaseScoreAnswer]
    changes: ChangesAnswer | None = None
    tools: list[OpenObject] | None = None
    diverged: bool
    refused_writes: int
    no_context: bool
    approval_skipped: bool
    stopped: OpenObject | None = None
    error: str | None = None
    corrections: list[CorrectionCheckAnswer] | None = None
    correction_differences: list[CorrectionDifferenceAnswer] | None = None
    rescored: bool | None = None
    passed_all: bool | None = None
    passed_any: bool | None = None
    flaky: bool | None = None
    passed_before: bool | None = None
    errored: bool | None = None
    guardrails_tripped: list[str] | None = None
    baseline_replay: BaselineReplayAnswer | None = None


class ComparisonMetric(WireModel):
    """A metric of the recorded runs beside the candidate's (`paired` is an extension)."""

    k: int | None = None
    baseline: WholeNumber | None
    candidate: WholeNumber | None
    delta: WholeNumber | None
    n: int
    weight: WholeNumber
    baseline_n: int
    baseline_weight: WholeNumber
    direction: str
    spread: WholeNumber | None = None
    baseline_spread: WholeNumber | None = None
    fresh_weight: WholeNumber | None = None
    paired: PairedComparison | None = None

    @model_validator(mode="before")
    @classmethod
    def _sides(cls, data: object) -> object:
        return _nulls(data, "baseline", "candidate", "delta")


class PassRate(WireModel):
    """The share of checked parts passed, before and now (shares as computed)."""

    baseline: float | None
    candidate: float | None
    delta: float | None
    n: int
    weight: WholeNumber
    baseline_n: int
    baseline_weight: WholeNumber
    direction: str
    paired: PairedComparison | None = None

    @model_validator(mode="before")
    @classmethod
    def _sides(cls, data: object) -> object:
        return _nulls(data, "baseline", "candidate", "delta")


class ComparisonMetrics(WireModel):
    """The summary's metrics."""

    weighted_yes_share: ComparisonMetric
    judged_coverage: ComparisonMetric
    weighted_precision_at_k: ComparisonMetric
    case_coverage: ComparisonMetric | None = None
    pass_rate: PassRate | None = None


class ComparisonSuite(WireModel):
    """The suite version tried."""

    id: str
    version: str


class ComparisonCandidate(WireModel):
    """The version tried."""

    kind: str
    agent_id: str | None = None
    flow_id: str | None = None
    version: str | None = None
    versions: OpenObject | None = None


class ComparisonScope(WireModel):
    """Where the cases come from."""

    project_id: str


class ModelUseAnswer(WireModel):
    """Replays a provider's model answered."""

    provider_id: str
    model: str
    runs: int


class ComparisonSampling(WireModel):
    """The models the replays ran on."""

    models: list[ModelUseAnswer]


class CheckCountAnswer(WireModel):
    """Checked parts, and those passed."""

    checked: int
    passed: int


class ComparisonJudge(WireModel):
    """Which judge checked the answers."""

    kind: str
    provider_id: str | None = None
    model: str | None = None
    note: str | None = None


class BaselineCountsAnswer(WireModel):
    """A version baseline's own counts over the cases (an extension, docs/api.md)."""

    diverged: int
    refused_writes: int
    errors: int
    stopped: int
    models: list[ModelUseAnswer]


class ComparisonSummary(WireModel):
    """The comparison over every finished case."""

    eval_run_id: str
    status: str
    completed_at: str
    suite: ComparisonSuite
    candidate: ComparisonCandidate
    baseline: ComparisonBaseline
    scope: ComparisonScope
    cases: int
    diverged: int
    refused_writes: int
    errors: int
    stopped: int
    reads: str
    class_weights: str
    sample: OpenObject | None = None
    sampling: ComparisonSampling
    repetitions: int
    metrics: ComparisonMetrics
    corrections: CheckCountAnswer
    judge: ComparisonJudge | None = None
    rescore_of: str | None = None
    not_rescored: int | None = None
    flaky: FlakyCasesAnswer | None = None
    resume_of: str | None = None
    guardrails_tripped: dict[str, int] | None = None
    baseline_replays: BaselineCountsAnswer | None = None
    cost: ComparisonCost | None = None
    reused_answers: int | None = None


class JudgedComparisonResult(WireModel):
    """A judged eval run's result: the summary and each case."""

    summary: ComparisonSummary
    per_case: list[ComparisonCaseResult]


class PreviewCaseAnswer(WireModel):
    """A case a dry run would replay."""

    case_index: int
    case_id: str
    input: OpenJson

    @model_validator(mode="before")
    @classmethod
    def _input(cls, data: object) -> object:
        """With `input` (null once erased), without the run it was copied from."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "run_id"}
        return _nulls(data, "input")


class DryRunResultAnswer(WireModel):
    """A dry run's result: the cases it would replay, and each side's replays."""

    dry_run: bool
    preview: list[PreviewCaseAnswer]
    replays: ReplayCountAnswer | None = None


class DryRunPreviewAnswer(WireModel):
    """How many cases a dry run would replay, which, and each side's replays."""

    cases: int
    preview: list[PreviewCaseAnswer]
    replays: ReplayCountAnswer | None = None


def cases_apart(result: object) -> bool:
    """Whether a run's result is a comparison, read without its cases: they are written a
    page at a time."""
    return isinstance(result, ComparisonResult)


def answer_with_case_pages(
    model: type[BaseModel], run: object, pages: Iterable[list[CaseResult]]
) -> StreamingResponse:
    """An eval run's answer through `model`, its result's `perCase` written a page of cases
    at a time (each through `ComparisonCaseResult`), so a run of thousands of cases is
    never held whole, as records or as JSON, to be read."""
    head = shape(model, run)
    return stream_cases(head, [(mark_cases(head), pages)])


def mark_cases(item: JSON) -> str:
    """Put a marker (a string no answer holds) where a shaped run's `perCase` goes, for
    `stream_cases`."""
    result = item.get("result") if isinstance(item, dict) else None
    if not isinstance(result, dict):
        raise TypeError("a run's cases are marked in its shaped result")
    marker = f"perCase-{uuid.uuid4().hex}"
    result["perCase"] = marker
    return marker


def stream_cases(
    head: JSON, cases: Sequence[tuple[str, Iterable[list[CaseResult]]]]
) -> StreamingResponse:
    """`head` as JSON with each marker (in the order they appear) replaced by its run's cases,
    written one chunk per page of cases."""
    return StreamingResponse(case_chunks(head, cases), media_type="application/json")


def case_chunks(
    head: JSON, cases: Sequence[tuple[str, Iterable[list[CaseResult]]]]
) -> Iterator[bytes]:
    """The chunks of `stream_cases`' JSON: one per page of cases, and the parts between."""
    tail = dumps(head)
    for marker, pages in cases:
        before, tail = tail.split(dumps(marker), 1)
        yield before + b"["
        separator = b""
        for page in pages:
            if page:
                yield separator + b",".join(dumps(shape(ComparisonCaseResult, c)) for c in page)
                separator = b","
        yield b"]"
    yield tail
