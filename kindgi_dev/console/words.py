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


def headline(summary: dict[str, Any]) -> str:
    """The run in one sentence: better, worse or the same, by how much, on how many cases."""
    share = (summary.get("metrics") or {}).get("weightedYesShare") or {}
    name = candidate_name(summary)
    before, after = share.get("baseline"), share.get("candidate")
    if before is None or after is None:
        return (
            f"No case has answers people corrected, so people's corrections can't rate {name} yet."
        )
    if after > before:
        judged = "better than the recorded runs"
    elif after < before:
        judged = "worse than the recorded runs"
    else:
        judged = "the same as the recorded runs"
    text = (
        f"People's corrections rate {name} {judged}: {percent(before)} marked right before, "
        f"{percent(after)} now, on the {share.get('n', 0)} of {summary.get('cases', 0)} cases "
        "with answers people corrected."
    )
    diverged = int(summary.get("diverged") or 0)
    if diverged == 1:
        text += " In 1 case it read something the recording didn't have."
    elif diverged > 1:
        text += f" In {diverged} cases it read something the recording didn't have."
    return text


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
