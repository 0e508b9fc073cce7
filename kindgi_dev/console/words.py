"""What an eval run's page says in words: the headline, the restricted line, a stopped case.

Pure functions of the `JudgedComparisonResult`, so the words are tested without a browser.
"""

from __future__ import annotations

import json
from typing import Any

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


def candidate_name(summary: dict[str, Any]) -> str:
    """`acme-ops.article-picker 0.2.0`, or the flow's id and version."""
    candidate = summary.get("candidate") or {}
    ident = candidate.get("agentId") or candidate.get("flowId") or "the version"
    version = candidate.get("version")
    return f"{ident} {version}" if version else str(ident)


def baseline_name(summary: dict[str, Any]) -> str | None:
    """A version baseline's name (`0.2.0`; another agent's with its id; a live one as
    `the live version (0.3.0)`), or None against the recorded runs."""
    baseline = summary.get("baseline") or {}
    if baseline.get("kind") != "version":
        return None
    candidate = summary.get("candidate") or {}
    ident = candidate.get("flowId") or candidate.get("agentId")
    name = str(baseline.get("version"))
    if baseline.get("agentId") != ident:
        name = f"{baseline.get('agentId')} {name}"
    return f"the live version ({name})" if baseline.get("via") == "live" else name


def against(summary: dict[str, Any]) -> str:
    """What the run compares, in a few words: `acme-ops.article-picker 0.3.0 against 0.2.0`."""
    return f"{candidate_name(summary)} against {baseline_name(summary) or 'the recorded runs'}"


def headline(summary: dict[str, Any]) -> str:
    """The run in one sentence: better, worse or the same, by how much, on how many cases."""
    share = (summary.get("metrics") or {}).get("weightedYesShare") or {}
    name = candidate_name(summary)
    before, after = share.get("baseline"), share.get("candidate")
    if before is None or after is None:
        return (
            f"No case has answers people corrected, so people's corrections can't rate {name} yet."
        )
    other = baseline_name(summary)
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
        f"{percent(after)} with {(summary.get('candidate') or {}).get('version')}"
    )
    text = (
        f"People's corrections rate {name} {judged}: {sides}, on the {share.get('n', 0)} of "
        f"{summary.get('cases', 0)} cases with answers people corrected."
    )
    diverged = int(summary.get("diverged") or 0)
    if diverged == 1:
        text += " In 1 case it read something the recording didn't have."
    elif diverged > 1:
        text += f" In {diverged} cases it read something the recording didn't have."
    return text


def _version_of(name: str) -> str:
    """`0.3.0` of `the live version (0.3.0)`; a plain name as it is."""
    return name.removeprefix("the live version (").removesuffix(")")


def noise(summary: dict[str, Any]) -> str | None:
    """Whether the headline's change is beyond what the cases' spread explains, with its
    95% interval: "Better, and beyond noise: +0.41 to +0.92.", or "No clear difference"."""
    share = (summary.get("metrics") or {}).get("weightedYesShare") or {}
    paired = share.get("paired") or {}
    found = paired.get("interval")
    if not paired or not found:
        return None
    span = f"{_signed(found['low'])} to {_signed(found['high'])}"
    cases = f"{paired['wins']} cases better, {paired['losses']} worse, {paired['ties']} the same"
    said = {
        "better": f"Better, and beyond noise: {span}",
        "worse": f"Worse, and beyond noise: {span}",
        "no clear difference": f"No clear difference: the change could be noise ({span})",
        "too few cases": f"Too few cases to tell a change from noise ({span})",
    }[paired["verdict"]]
    return f"{said}; {cases}."


def _signed(value: float) -> str:
    """A change with its sign and two decimals (`+0.41`, `-0.25`, `0.00`)."""
    return "0.00" if abs(value) < 0.005 else f"{value:+.2f}"


def stopped(entry: dict[str, Any]) -> str | None:
    """What a flow case stopped at a refused write would have done, or None."""
    found = entry.get("stopped")
    if not found:
        return None
    arguments = json.dumps(found.get("arguments"), ensure_ascii=False, separators=(",", ":"))
    return (
        f"It stopped at a tool call the replay refused: it would have called {found['toolId']} "
        f"with `{arguments}`. That call wasn't carried out, and there's no output to rate."
    )


def metric_name(name: str, metric: dict[str, Any]) -> str:
    """The console's name of a metric (`Top 10 marked right` for precision at k)."""
    return METRIC_NAMES.get(name, name).format(k=metric.get("k", 10))


def cost_line(summary: dict[str, Any]) -> str | None:
    """What the version's replays cost: `6 model calls, 1,234 tokens (1,000 in, 234 out),
    $0.0123.`; None when no replay called a model."""
    cost = summary.get("cost")
    if not cost:
        return None
    calls = cost["modelCalls"]
    prompt, completion = cost["tokens"]["prompt"], cost["tokens"]["completion"]
    spent = cost.get("costUsd")
    money = f"${spent:,.4f}" if spent is not None else "no price: its provider names none"
    noun = "model call" if calls == 1 else "model calls"
    return (
        f"What it cost: {calls:,} {noun}, {prompt + completion:,} tokens"
        f" ({prompt:,} in, {completion:,} out), {money}."
    )
