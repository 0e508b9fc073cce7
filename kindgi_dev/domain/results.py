"""An eval run's result as records: each case's comparison, and the summary of them all.

The comparison (`comparison.case_result`, `metrics.comparison_metrics`) fills these; the
store keeps them and the API and the console render them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import TypeVar

from .baselines import BaselineScope
from .changes import Changes
from .checks import Difference
from .cost import RunCost
from .json import JSON, JSONObject
from .metrics import CaseScore, Metrics


@dataclass(frozen=True)
class CorrectionCheck:
    """One of a case's checked parts: whether every repetition passed it."""

    part: str
    passed: bool
    repetitions_passed: int
    repetitions: int
    judgment_id: str | None = None


@dataclass(frozen=True)
class CorrectionDifference:
    """How the first repetition that failed a checked part differs from what was expected."""

    part: str
    repetition: int
    differences: list[Difference]
    judgment_id: str | None = None


@dataclass(frozen=True)
class BaselineReplay:
    """A version baseline's replays of one case, under the candidate's rules: their runs,
    each repetition's score, and what the first one did (`CaseResult`'s names)."""

    run_ids: list[str]
    scores: list[CaseScore]
    diverged: bool
    refused_writes: int
    approval_skipped: bool
    changes: Changes | None = None
    tools: list[JSONObject] | None = None
    stopped: JSONObject | None = None
    error: str | None = None
    corrections: list[CorrectionCheck] | None = None
    correction_differences: list[CorrectionDifference] | None = None


@dataclass(frozen=True)
class CaseResult:
    """One case compared: the recorded run's score beside each repetition's, and what it did.

    `corrections` and `correction_differences` are set when the case has checked parts;
    `rescored` is False on a rescore's case whose runs are gone. `passed_all` (pass^n),
    `passed_any`, `flaky` and `passed_before` (the recorded run, or a version baseline) are
    set when the case has something to pass (`domain.outcomes`); `errored` when no
    repetition had an answer. With a version baseline, `baseline` is its first repetition's
    score and `baseline_replay` all of its replays.
    """

    case_id: str
    run_ids: list[str]
    baseline: CaseScore
    candidate: list[CaseScore]
    diverged: bool
    refused_writes: int
    no_context: bool
    approval_skipped: bool
    changes: Changes | None = None
    tools: list[JSONObject] | None = None
    stopped: JSONObject | None = None
    error: str | None = None
    corrections: list[CorrectionCheck] | None = None
    correction_differences: list[CorrectionDifference] | None = None
    rescored: bool | None = None
    passed_all: bool | None = None
    passed_any: bool | None = None
    flaky: bool | None = None
    passed_before: bool | None = None
    errored: bool | None = None
    guardrails_tripped: list[str] | None = None
    """The guardrails the candidate tripped on this case (in any repetition)."""
    baseline_replay: BaselineReplay | None = None


ERASED_REASON = "an erasure cleared the words of this reason"
"""An answer check's reason once an erasure cleared the words it quoted."""
ERASED_ERROR = "an erasure cleared the words of this error"
"""A replay's error once an erasure cleared it: a failure's message may quote the turn (a
tool's error echoing its arguments, a provider's quoting the prompt); the case still errored."""


def without_words(case: CaseResult) -> CaseResult:
    """The case as an erasure leaves it: its checks, differences, calls and scores, without
    the words it copied (answer checks' reasons, the replays' tool arguments and errors)."""
    cleared = _side_without_words(case)
    rest = case.baseline_replay
    return cleared if rest is None else replace(cleared, baseline_replay=_side_without_words(rest))


_Side = TypeVar("_Side", CaseResult, BaselineReplay)


def _side_without_words(side: _Side) -> _Side:
    """One side of a case (the candidate's, or a version baseline's replay) without words."""
    return replace(
        side,
        tools=_calls_without_words(side.tools),
        stopped=_call_without_words(side.stopped),
        error=_error_without_words(side.error),
        correction_differences=_differences_without_words(side.correction_differences),
    )


def _error_without_words(error: str | None) -> str | None:
    return None if error is None else ERASED_ERROR


def _calls_without_words(calls: list[JSONObject] | None) -> list[JSONObject] | None:
    return None if calls is None else [{**call, "arguments": None} for call in calls]


def _call_without_words(call: JSONObject | None) -> JSONObject | None:
    return None if call is None else {**call, "arguments": None}


def _differences_without_words(
    found: list[CorrectionDifference] | None,
) -> list[CorrectionDifference] | None:
    if found is None:
        return None
    return [
        replace(part, differences=[_difference_without_words(d) for d in part.differences])
        for part in found
    ]


def _difference_without_words(difference: Difference) -> Difference:
    """An answer's reason may quote `shouldSay` (a judging model's, anything) and a field's
    `actual` is what the replay gave: both go; `expected` is the correction's, which stays."""
    if difference.kind == "answer":
        return replace(difference, reason=ERASED_REASON)
    if difference.kind == "field-value":
        return replace(difference, actual=None)
    return difference


@dataclass(frozen=True)
class FinishedCase:
    """A finished case as an eval run keeps it: its result and what the summary counts."""

    result: CaseResult
    checks: list[bool]
    baseline_checks: list[bool]
    made_on: str
    models: list[dict[str, str]] = field(default_factory=list)
    baseline_models: list[dict[str, str]] = field(default_factory=list)
    reused: int = 0
    """How many of the case's answers (repetitions, both sides) were reused."""


@dataclass(frozen=True)
class SuiteRef:
    """The suite (or test set) version the run tried."""

    id: str
    version: str


@dataclass(frozen=True)
class Candidate:
    """The version tried: an agent's, or a flow's with the parts it swapped (`versions`)."""

    kind: str
    version: str | None
    agent_id: str | None = None
    flow_id: str | None = None
    versions: dict[str, dict[str, str]] | None = None


@dataclass(frozen=True)
class BaselineVersion:
    """A version the recorded runs were made on, and how many cases it made."""

    version: str
    cases: int
    agent_id: str | None = None
    flow_id: str | None = None


@dataclass(frozen=True)
class Baseline:
    """What the candidate is compared with: the recorded runs, by the version they ran
    (`recorded`), or another version replayed beside it (`version`: the agent's or the
    flow's id and version, `via` explicit or live, the live scope asked for, and where the
    live version came from: `latest-registered` until releases pin one)."""

    kind: str
    versions: list[BaselineVersion] | None = None
    agent_id: str | None = None
    flow_id: str | None = None
    version: str | None = None
    via: str | None = None
    live_scope: BaselineScope | None = None
    live_source: str | None = None

    @property
    def replayed(self) -> bool:
        """Whether the baseline is a version replayed beside the candidate."""
        return self.kind == "version"


@dataclass(frozen=True)
class BaselineCounts:
    """A version baseline's own counts over the cases, beside the candidate's in the summary."""

    diverged: int
    refused_writes: int
    errors: int
    stopped: int
    models: list[ModelUse]


@dataclass(frozen=True)
class Scope:
    """Where the run's cases come from."""

    project_id: str


@dataclass(frozen=True)
class ModelUse:
    """How many replays a provider's model answered."""

    provider_id: str
    model: str
    runs: int


@dataclass(frozen=True)
class Sampling:
    """The models the replays ran on."""

    models: list[ModelUse]


@dataclass(frozen=True)
class CheckCount:
    """How many of the cases' checked parts the candidate passed."""

    checked: int
    passed: int


@dataclass(frozen=True)
class Judge:
    """Which judge checked the answers: a configured model, or the deterministic one."""

    kind: str
    provider_id: str | None = None
    model: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class FlakyCases:
    """The cases some repetitions passed and some didn't (with more than one repetition)."""

    count: int
    case_ids: list[str]


@dataclass(frozen=True)
class Summary:
    """The comparison over every finished case, with the run's settings and counts."""

    eval_run_id: str
    status: str
    completed_at: str
    suite: SuiteRef
    candidate: Candidate
    baseline: Baseline
    scope: Scope
    cases: int
    diverged: int
    refused_writes: int
    errors: int
    stopped: int
    reads: str
    class_weights: str
    sampling: Sampling
    repetitions: int
    metrics: Metrics
    corrections: CheckCount
    sample: JSONObject | None = None
    judge: Judge | None = None
    rescore_of: str | None = None
    not_rescored: int | None = None
    flaky: FlakyCases | None = None
    resume_of: str | None = None
    guardrails_tripped: dict[str, int] | None = None
    """How many cases each guardrail tripped on, when one did."""
    baseline_replays: BaselineCounts | None = None
    cost: RunCost | None = None
    """What the candidate's replays cost (an extension beside the contract's fields)."""
    reused_answers: int | None = None
    """How many answers were an earlier run's, reused: only on a run asked to reuse."""


@dataclass(frozen=True)
class ComparisonResult:
    """A judged eval run's result: the summary and each case's comparison."""

    summary: Summary
    per_case: list[CaseResult]


@dataclass(frozen=True)
class PreviewCase:
    """A case a dry run would replay, with the input it would give."""

    case_index: int
    case_id: str
    input: JSON
    run_id: str | None = None
    """The past run the input is copied from, for an erasure of it to find (not answered)."""


@dataclass(frozen=True)
class ReplayCount:
    """How many replays each side of a run would make: the candidate's, and a version
    baseline's (0 against the recorded runs). Each is one agent turn or flow run, with one
    model call or more."""

    candidate: int
    baseline: int


@dataclass(frozen=True)
class DryRunResult:
    """A dry run's result: the cases it would replay, none replayed, and the replays each
    side would make."""

    dry_run: bool
    preview: list[PreviewCase]
    replays: ReplayCount | None = None


def preview_without_words(result: DryRunResult, run_ids: Collection[str]) -> DryRunResult:
    """A dry run's result as an erasure of these runs leaves it: their inputs cleared."""
    return replace(
        result,
        preview=[replace(c, input=None) if c.run_id in run_ids else c for c in result.preview],
    )


EvalResult = ComparisonResult | DryRunResult
"""What a finished eval run holds."""
