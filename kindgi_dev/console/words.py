"""What an eval run's page says in words: the headline, the restricted line, a stopped case,
the name of what was tried, and a case's title.

Pure functions of records (an eval run's, its summary's view), so the words are tested
without a browser or the API's wire shapes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ..domain.cost import RunCost
from ..domain.json import JSON
from ..domain.metrics import Metric
from ..domain.results import Baseline, Candidate, ComparisonResult, Summary
from ..services.eval_runs import EvalRun

RESTRICTED = "Only experts' corrections counted; the others weighed 0."
RESTRICTED_MARK = "restricted classes only"
METRIC_NAMES = {
    "weightedYesShare": "Share marked right",
    "judgedCoverage": "Corrected items",
    "weightedPrecisionAtK": "Top {k} marked right",
    "caseCoverage": "Cases with corrections",
    "passRate": "Checks passed",
}


def percent(value: float) -> str:
    """A share as a whole percentage."""
    return f"{value * 100:.0f}%"


def swapped(versions: Mapping[str, Mapping[str, str]] | None) -> str:
    """The parts a flow ran at other versions (`--with`), as words to follow its name:
    ` with acme-ops.find-articles 0.2.0`; empty when it ran as published."""
    parts = [
        f"{ident} {version}"
        for kind in ("tools", "agents")
        for ident, version in sorted(((versions or {}).get(kind) or {}).items())
    ]
    return f" with {' and '.join(parts)}" if parts else ""


def candidate_name(candidate: Candidate, fallback: str = "the version") -> str:
    """`acme-ops.article-picker 0.2.0`, or the flow's id and version with each tool and
    agent it ran at another version: `acme-ops.suggest-articles 0.1.0 with
    acme-ops.find-articles 0.2.0`."""
    ident = candidate.agent_id or candidate.flow_id or fallback
    return f"{ident} {candidate.version or ''}".strip() + swapped(candidate.versions)


def baseline_name(candidate: Candidate, baseline: Baseline) -> str | None:
    """A version baseline's name (`0.2.0`; another agent's or flow's with its id; a live one
    as `the live version (0.3.0)`), or None against the recorded runs."""
    if not baseline.replayed:
        return None
    name = str(baseline.version)
    other = baseline.agent_id or baseline.flow_id
    if other not in (candidate.agent_id or candidate.flow_id, None):
        name = f"{other} {name}"
    return f"the live version ({name})" if baseline.via == "live" else name


@dataclass(frozen=True)
class SummaryView:
    """What an eval run's headline, noise and against lines read of its summary: the
    candidate's name and version, a version baseline's name (None against the recorded
    runs), the cases and diverged counts, and the share marked right."""

    candidate: str
    version: str | None
    baseline: str | None
    cases: int
    diverged: int
    share: Metric


def summary_view(summary: Summary) -> SummaryView:
    """The view of a finished eval run's summary record."""
    return view_of(
        summary.candidate, summary.baseline, summary.cases, summary.diverged,
        summary.metrics.weighted_yes_share,
    )  # fmt: skip


def view_of(
    candidate: Candidate, baseline: Baseline, cases: int, diverged: int, share: Metric
) -> SummaryView:
    """A summary's view from the records it reads: the candidate, the baseline, the counts
    and the share marked right."""
    return SummaryView(
        candidate=candidate_name(candidate),
        version=candidate.version,
        baseline=baseline_name(candidate, baseline),
        cases=cases,
        diverged=diverged,
        share=share,
    )


def tried(record: EvalRun) -> str:
    """What an eval run tried, whole, for its list row and its page's name: the candidate
    with its swapped parts and, with a version baseline, `against` it (`acme-ops.article-picker
    0.3.0 against 0.2.0`). A finished run names the versions it resolved; a running one what
    it was asked."""
    result = record.result
    baseline: Baseline | None
    if isinstance(result, ComparisonResult):
        tried_as = result.summary.candidate
        ident = tried_as.agent_id or tried_as.flow_id or record.suite_id
        name = candidate_name(tried_as, record.suite_id)
        baseline = result.summary.baseline
    else:
        ref = record.agent_ref or record.flow_ref
        ident = record.flow_ref.flow_id if record.flow_ref else record.suite_id
        ident = record.agent_ref.agent_id if record.agent_ref else ident
        version = ref.version if ref is not None else None
        versions = record.comparison.versions if record.comparison else None
        name = f"{ident} {version or '(its served version)'}" + swapped(versions)
        baseline = record.comparison.baseline_version if record.comparison else None
    if baseline is None or not baseline.replayed:
        return name
    other = str(baseline.version)
    if (baseline.agent_id or baseline.flow_id) not in (ident, None):
        other = f"{baseline.agent_id or baseline.flow_id} {other}"
    live = " (the live version)" if baseline.via == "live" else ""
    return f"{name} against {other}{live}"


def case_title(given: JSON, index: int) -> str:
    """A case's title: the question it asked (an agent turn's `userMessage`, a flow's one
    text field), else its input in one short line; `Case N` when its input is gone."""
    if isinstance(given, Mapping):
        texts = [v for v in given.values() if isinstance(v, str) and v.strip()]
        text = given.get("userMessage") or given.get("question")
        if not isinstance(text, str) and len(texts) == 1:
            text = texts[0]
        if isinstance(text, str) and text.strip():
            return _short(text.strip())
    if isinstance(given, str) and given.strip():
        return _short(given.strip())
    if given is None or given == {}:
        return f"Case {index + 1}"
    return _short(json.dumps(given, ensure_ascii=False, separators=(", ", ": ")))


def _short(text: str, most: int = 120) -> str:
    """A title's text on one line, cut at `most` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 1].rstrip() + "…"


def against(view: SummaryView) -> str:
    """What the run compares, in a few words: `acme-ops.article-picker 0.3.0 against 0.2.0`."""
    return f"{view.candidate} against {view.baseline or 'the recorded runs'}"


def headline(view: SummaryView) -> str:
    """The run in one sentence: better, worse or the same, by how much, on how many cases."""
    before, after, other = view.share.baseline, view.share.candidate, view.baseline
    if before is None or after is None:
        return (
            "No case has answers people corrected, so people's corrections can't rate "
            f"{view.candidate} yet."
        )
    if after > before:
        judged = f"better than {other or 'the recorded runs'}"
    elif after < before:
        judged = f"worse than {other or 'the recorded runs'}"
    else:
        judged = f"the same as {other or 'the recorded runs'}"
    sides = (
        f"{percent(before)} marked right before, {percent(after)} now"
        if other is None
        else f"{percent(before)} marked right with {_version_of(other)}, "
        f"{percent(after)} with {view.version}"
    )
    text = (
        f"People's corrections rate {view.candidate} {judged}: {sides}, on the "
        f"{view.share.n} of {view.cases} cases with answers people corrected."
    )
    if view.diverged == 1:
        text += " In 1 case it read something the recording didn't have."
    elif view.diverged > 1:
        text += f" In {view.diverged} cases it read something the recording didn't have."
    return text


def _version_of(name: str) -> str:
    """`0.3.0` of `the live version (0.3.0)`; a plain name as it is."""
    return name.removeprefix("the live version (").removesuffix(")")


def noise(view: SummaryView) -> str | None:
    """Whether the headline's change is beyond what the cases' spread explains, with its
    95% interval: "Better, and beyond noise: +0.41 to +0.92.", or "No clear difference"."""
    paired = view.share.paired
    if paired is None or paired.interval is None:
        return None
    span = f"{_signed(paired.interval.low)} to {_signed(paired.interval.high)}"
    cases = f"{paired.wins} cases better, {paired.losses} worse, {paired.ties} the same"
    said = {
        "better": f"Better, and beyond noise: {span}",
        "worse": f"Worse, and beyond noise: {span}",
        "no clear difference": f"No clear difference: the change could be noise ({span})",
        "too few cases": f"Too few cases to tell a change from noise ({span})",
    }[paired.verdict]
    return f"{said}; {cases}."


def _signed(value: float) -> str:
    """A change with its sign and two decimals (`+0.41`, `-0.25`, `0.00`)."""
    return "0.00" if abs(value) < 0.005 else f"{value:+.2f}"


def stopped(entry: Mapping[str, JSON]) -> str | None:
    """What a flow case stopped at a refused write would have done, or None."""
    found = entry.get("stopped")
    if not isinstance(found, dict) or not found:
        return None
    arguments = json.dumps(found.get("arguments"), ensure_ascii=False, separators=(",", ":"))
    return (
        f"It stopped at a tool call the replay refused: it would have called {found['toolId']} "
        f"with `{arguments}`. That call wasn't carried out, and there's no output to rate."
    )


METRIC_MEANINGS = {
    "weightedYesShare": "Of the items people corrected, the weighted share they marked "
    "right. Higher is better.",
    "judgedCoverage": "Of the answers' items, the share people had corrected: an item no one "
    "corrected can't be scored. Lower is no worse an answer; it means the other numbers rest "
    "on fewer items.",
    "weightedPrecisionAtK": "Of the corrected items in each answer's first {k}, the weighted "
    "share marked right, averaged over the cases. Higher is better.",
    "caseCoverage": "Of the cases, the share with an item people corrected. It says how many "
    "cases the numbers rest on, not which version is better.",
    "passRate": "Of the checks the cases hold (the decisions and answers people corrected), "
    "the share passed on every run. Higher is better.",
}


def metric_meaning(name: str, k: int = 10) -> str:
    """What a metric means in one line, and which way is better."""
    return METRIC_MEANINGS.get(name, "").format(k=k)


def metric_name(name: str, metric: Mapping[str, object]) -> str:
    """The console's name of a metric (`Top 10 marked right` for precision at k)."""
    return METRIC_NAMES.get(name, name).format(k=metric.get("k", 10))


def cost_line(cost: RunCost | None) -> str | None:
    """What the version's replays cost: `6 model calls, 1,234 tokens (1,000 in, 234 out),
    $0.0123.`; None when no replay called a model."""
    if cost is None:
        return None
    calls, prompt, completion = cost.model_calls, cost.tokens.prompt, cost.tokens.completion
    spent = cost.cost_usd
    money = f"${spent:,.4f}" if spent is not None else "no price: its provider names none"
    noun = "model call" if calls == 1 else "model calls"
    return (
        f"What it cost: {calls:,} {noun}, {prompt + completion:,} tokens"
        f" ({prompt:,} in, {completion:,} out), {money}."
    )
