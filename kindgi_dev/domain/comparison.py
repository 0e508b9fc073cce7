"""Comparing a candidate's replays with the recorded runs: per case, then the summary.

Pure: a `ReplayCase` says what a case expects and what the past run did; `Replayed`
is what one repetition of the candidate did; the functions here give each case's
`CaseResult` and the summary's metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from .changes import changes
from .checks import (
    AnswerCheck,
    Difference,
    MadeCall,
    check_decisions,
    deterministic_answer_check,
)
from .expectations import Answer, Decisions
from .items import answer_text, items_of
from .json import JSON, JSONObject
from .metrics import (
    CaseScore,
    Metric,
    Metrics,
    Verdict,
    attach_values,
    compare,
    comparison_metrics,
    pass_share,
    score_case,
)
from .metrics import judged_coverage as coverage_measure
from .outcomes import repeated, repetition_passed
from .paired import (
    Columns,
    Part,
    columns,
    coverage_part,
    paired_columns,
    precision_part,
    share_part,
)
from .replay import RecordedCall
from .results import CaseResult, CorrectionCheck, CorrectionDifference


@dataclass(frozen=True)
class CheckedPart:
    """One checked part of a case: its `decisions` or its `answer`, from one correction."""

    part: str
    expected: Decisions | Answer
    judgment_id: str | None = None
    tools: tuple[str, ...] | None = None
    """For `right` decisions, the tools the past run called when the case names them
    (a suite case's `calls`); None: the recorded run's."""


@dataclass(frozen=True)
class ReplayCase:
    """A case to replay: the past run and what people said of it."""

    case_id: str
    run_id: str
    agent_id: str
    made_on: str
    message: str
    history: list[JSONObject]
    tool_env: dict[str, dict[str, str]]
    output: JSON
    recorded_tool_ids: tuple[str, ...]
    verdicts: tuple[Verdict, ...]
    expectations: tuple[CheckedPart, ...] = ()
    recorded: tuple[RecordedCall, ...] = ()
    """The past run's tool calls with their results, which a replay reads instead of the tools."""
    flow_input: JSON = None
    """A flow case's run input (None for an agent case, whose input is `message`)."""

    @property
    def strict(self) -> bool:
        """A case that says what the run should have done replays strictly."""
        return any(e.part == "decisions" for e in self.expectations)


@dataclass(frozen=True)
class Replayed:
    """One repetition of the candidate on a case."""

    run_id: str
    output: JSON
    tools: list[JSONObject]
    diverged: bool
    refused: int
    approval_skipped: bool
    provider: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    judged: dict[int, AnswerCheck] = field(default_factory=dict)
    stopped: JSONObject | None = None
    """A flow replay that stopped at a refused call: `{toolId, arguments, reason}`."""
    verdicts: tuple[Verdict, ...] = ()
    """Verdicts given on this replay itself (`fresh`), scored beside the case's in a rescore."""
    guardrails: tuple[str, ...] = ()
    """The guardrails this repetition tripped (a `halt` that failed it, or one recorded)."""
    reused: bool = False
    """Whether this answer is an earlier run's of the same content, reused (`reuse: true`)."""
    completed: bool = True
    """Whether its run completed (neither failed nor paused): only a completed run's answers
    are judged by the judging model, a reused one's again by the judge configured now."""


def checks_of(case: ReplayCase, replay: Replayed) -> list[tuple[CheckedPart, list[Difference]]]:
    """Each expectation with the differences of one repetition (none = passed).

    An answer check uses the judging model's verdict when the repetition has one, else
    the deterministic judge.
    """
    made = [
        MadeCall(str(t["toolId"]), t.get("arguments"), t.get("source") == "refused")
        for t in replay.tools
    ]
    found = []
    for position, expectation in enumerate(case.expectations):
        expected = expectation.expected
        if isinstance(expected, Decisions):
            tools = case.recorded_tool_ids if expectation.tools is None else expectation.tools
            differences = check_decisions(expected, made, list(tools))
        else:
            passed, reason = replay.judged.get(position) or deterministic_answer_check(
                expected, answer_text(case.output), answer_text(replay.output)
            )
            differences = [] if passed else [Difference("answer", reason=reason)]
        found.append((expectation, differences))
    return found


def case_result(
    case: ReplayCase, replays: Sequence[Replayed], *, k: int, restricted_only: bool
) -> tuple[CaseResult, list[bool]]:
    """The case compared (the recorded run's score beside each repetition's), and whether
    the candidate passed each of its checked parts.

    A repetition that errored has no answer: it is left out of the scores and the checks,
    and a case none of whose repetitions answered is `errored`."""
    recorded = items_of(case.output)  # each output's items read once, scored and compared
    verdicts = attach_values(case.verdicts, recorded)  # the corrected items' values: id-less
    baseline = score_case(recorded, verdicts, k=k, restricted_only=restricted_only)
    ran = [r for r in replays if r.error is None]
    done = [r for r in ran if r.stopped is None]
    answered = [items_of(r.output) for r in done]
    first = done[0] if done else None
    counted = [v for v in verdicts if v.restricted] if restricted_only else verdicts
    errors = [r.error for r in replays if r.error]
    checks, differences, passes, per_repetition = _corrections(case, done)
    candidate = [
        score_case(items, [*verdicts, *r.verdicts], k=k, restricted_only=restricted_only)
        for items, r in zip(answered, done, strict=True)
    ]
    over = repeated(
        [repetition_passed(c, s) for c, s in zip(per_repetition, candidate, strict=True)]
    )
    result = CaseResult(
        case_id=case.case_id,
        run_ids=[r.run_id for r in replays if r.run_id],
        baseline=baseline,
        candidate=candidate,
        changes=None if first is None else changes(recorded, counted, answered[0]),
        tools=[_tool_entry(t) for t in (first or ran[0]).tools] if ran else None,
        diverged=any(r.diverged for r in ran),
        refused_writes=sum(r.refused for r in ran),
        no_context=False,
        approval_skipped=any(r.approval_skipped for r in ran),
        stopped=next((r.stopped for r in ran if r.stopped is not None), None),
        error=errors[0] if errors else None,
        corrections=checks,
        correction_differences=differences,
        passed_all=None if over is None else over.passed_all,
        passed_any=None if over is None else over.passed_any,
        flaky=None if over is None else over.flaky,
        passed_before=repetition_passed(baseline_passes(case), baseline)
        if over is not None
        else None,
        errored=True if errors and not ran else None,
        guardrails_tripped=sorted({g for r in replays for g in r.guardrails}) or None,
    )
    return result, passes


def _tool_entry(call: JSONObject) -> JSONObject:
    keys = ("step", "callId", "toolId", "toolVersion", "arguments", "source")
    entry: JSONObject = {key: call[key] for key in keys if key in call}
    if call.get("reason"):
        entry["reason"] = call["reason"]
    return entry


def _corrections(
    case: ReplayCase, done: Sequence[Replayed]
) -> tuple[
    list[CorrectionCheck] | None, list[CorrectionDifference] | None, list[bool], list[list[bool]]
]:
    """Each checked part's outcome over every repetition, the first failing repetition's
    differences, each part's pass (nothing when the case checks no part), and each
    repetition's passes of the parts."""
    if not case.expectations:
        return None, None, [], [[] for _ in done]
    per_repetition = [checks_of(case, r) for r in done]
    results, differences, passes = [], [], []
    for position, expectation in enumerate(case.expectations):
        outcomes = [checks[position][1] for checks in per_repetition]
        passed_count = sum(1 for diff in outcomes if not diff)
        passed = bool(outcomes) and passed_count == len(outcomes)
        passes.append(passed)
        results.append(
            CorrectionCheck(
                expectation.part, passed, passed_count, len(outcomes), expectation.judgment_id
            )
        )
        failing = next(((n, d) for n, d in enumerate(outcomes, 1) if d), None)
        if failing is not None:
            differences.append(
                CorrectionDifference(
                    expectation.part, failing[0], failing[1], expectation.judgment_id
                )
            )
    repetitions = [[not diff for _, diff in checks] for checks in per_repetition]
    return results, differences, passes, repetitions


def baseline_passes(case: ReplayCase) -> list[bool]:
    """The recorded run checked against the case's expectations, as the candidate is."""
    recorded = Replayed(
        case.run_id,
        case.output,
        [{"toolId": t, "arguments": None} for t in case.recorded_tool_ids],
        False,
        0,
        False,
    )
    return [not diff for _, diff in checks_of(case, recorded)]


def metrics(
    baseline: Sequence[CaseScore],
    candidate: Sequence[Sequence[CaseScore]],
    *,
    k: int,
    test_set: bool,
    baseline_checks: Sequence[Sequence[bool]] = (),
    candidate_checks: Sequence[Sequence[bool]] = (),
) -> Metrics:
    """The summary's metrics, each with its comparison case by case; a test-set run adds
    case coverage and the pass rate.

    The sides come one entry per case, in the same order (a case left out of the metrics
    is left out of both). The checks come one list per case; the pass rate's `n` counts
    the cases with a check, as every metric's `n` counts the cases it rests on, and its
    weight the checks.
    """
    found = comparison_metrics(baseline, candidate, k=k)
    floats: dict[float, float] = {}  # equal values kept once across every column
    sides = [_columns(part, baseline, candidate, floats) for part in (share_part, coverage_part,
                                                                      precision_part)]  # fmt: skip
    if test_set:
        before_checks = columns(([checks_part(c)] for c in baseline_checks), floats)
        sides.append((before_checks, columns(([checks_part(c)] for c in candidate_checks), floats)))
    share, covered, precision, *checks = paired_columns(sides)  # one draw a resample for all
    found = replace(
        found,
        weighted_yes_share=replace(found.weighted_yes_share, paired=share),
        judged_coverage=replace(found.judged_coverage, paired=covered),
        weighted_precision_at_k=replace(found.weighted_precision_at_k, paired=precision),
    )
    if not test_set:
        return found
    passed_before, passed_after = _passed(baseline_checks), _passed(candidate_checks)
    before, after = pass_share(*passed_before), pass_share(*passed_after)
    coverage = compare(coverage_measure, baseline, candidate)
    return replace(
        found,
        case_coverage=replace(coverage, paired=covered),  # judged coverage's parts, compared
        pass_rate=Metric(
            baseline=before,
            candidate=after,
            delta=None if before is None or after is None else after - before,
            n=sum(1 for case in candidate_checks if case),
            weight=passed_after[1],
            baseline_n=sum(1 for case in baseline_checks if case),
            baseline_weight=passed_before[1],
            paired=checks[0],
        ),
    )


def _columns(
    part: Callable[[CaseScore], Part],
    baseline: Sequence[CaseScore],
    candidate: Sequence[Sequence[CaseScore]],
    floats: dict[float, float],
) -> tuple[Columns, Columns]:
    """A metric's part of each case on each side as columns, one per repetition (the
    recorded run one): a reference a case and repetition, no list or tuple of its own."""
    return (
        columns(([part(s)] for s in baseline), floats),
        columns(([part(s) for s in c] for c in candidate), floats),
    )


def _passed(checks: Sequence[Sequence[bool]]) -> tuple[int, int]:
    """The checks passed and the checks, over every case."""
    return sum(sum(c) for c in checks), sum(len(c) for c in checks)


def checks_part(checks: Sequence[bool]) -> Part:
    """A case's share of the pass rate: its checks passed, of its checks."""
    return (float(sum(checks)), float(len(checks)))
