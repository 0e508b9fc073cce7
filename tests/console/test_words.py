"""The eval run page's words: the headline each way, and a stopped flow case."""

from __future__ import annotations

from typing import Any

from kindgi_dev.console import words


def summary(before: float | None, after: float | None, diverged: int = 0) -> dict[str, Any]:
    share = {"baseline": before, "candidate": after, "n": 3}
    return {"candidate": {"kind": "agent", "agentId": "acme-ops.article-picker",
                          "version": "0.2.0"}, "cases": 3, "diverged": diverged,
            "metrics": {"weightedYesShare": share}}  # fmt: skip


def test_the_tutorials_headline() -> None:
    assert words.headline(summary(1 / 3, 1.0, diverged=1)) == (
        "People's corrections rate acme-ops.article-picker 0.2.0 better than the recorded "
        "runs: 33% marked right before, 100% now, on the 3 of 3 cases with answers people "
        "corrected. In 1 case it read something the recording didn't have."
    )


def test_worse_unchanged_and_uncorrected_headlines() -> None:
    assert words.headline(summary(1.0, 0.5, diverged=2)) == (
        "People's corrections rate acme-ops.article-picker 0.2.0 worse than the recorded runs: "
        "100% marked right before, 50% now, on the 3 of 3 cases with answers people corrected. "
        "In 2 cases it read something the recording didn't have."
    )
    assert words.headline(summary(0.5, 0.5)) == (
        "People's corrections rate acme-ops.article-picker 0.2.0 the same as the recorded runs: "
        "50% marked right before, 50% now, on the 3 of 3 cases with answers people corrected."
    )
    assert words.headline(summary(None, None)) == (
        "No case has answers people corrected, so people's corrections can't rate "
        "acme-ops.article-picker 0.2.0 yet."
    )


def test_a_flow_candidate_and_a_stopped_case() -> None:
    flow = {**summary(0.5, 1.0), "candidate": {"kind": "flow", "flowId": "acme-ops.triage",
                                              "version": "1.1.0"}}  # fmt: skip
    assert words.headline(flow).startswith("People's corrections rate acme-ops.triage 1.1.0 better")
    entry = {"stopped": {"toolId": "acme-ops.log-suggestion",
                         "arguments": {"articles": ["kb-101"], "question": "Hi?"}}}  # fmt: skip
    assert words.stopped(entry) == (
        "It stopped at a tool call the replay refused: it would have called "
        'acme-ops.log-suggestion with `{"articles":["kb-101"],"question":"Hi?"}`. '
        "That call wasn't carried out, and there's no output to rate."
    )
    assert words.stopped({"caseId": "c"}) is None
    assert words.metric_name("weightedPrecisionAtK", {"k": 5}) == "Top 5 marked right"


def test_the_cost_line_says_calls_tokens_and_money_where_priced() -> None:
    priced = {"cost": {"modelCalls": 6, "tokens": {"prompt": 1000, "completion": 234},
                       "costUsd": 0.0123}}  # fmt: skip
    assert words.cost_line(priced) == (
        "What it cost: 6 model calls, 1,234 tokens (1,000 in, 234 out), $0.0123."
    )
    unpriced = {"cost": {"modelCalls": 1, "tokens": {"prompt": 5, "completion": 2}}}
    assert words.cost_line(unpriced) == (
        "What it cost: 1 model call, 7 tokens (5 in, 2 out), no price: its provider names none."
    )
    assert words.cost_line({"cases": 3}) is None


def paired(verdict: str, low: float, high: float, wins: int = 5) -> dict[str, Any]:
    interval = {"low": low, "high": high, "level": 0.95}
    return {"wins": wins, "losses": 1, "ties": 2, "n": 8, "interval": interval,
            "resamples": 2000, "seed": 25, "beyondNoise": verdict in ("better", "worse"),
            "verdict": verdict}  # fmt: skip


def with_paired(found: dict[str, Any]) -> dict[str, Any]:
    shown = summary(0.4, 0.8)
    shown["metrics"]["weightedYesShare"]["paired"] = found
    return shown


def test_the_headline_says_whether_the_change_is_beyond_noise() -> None:
    assert words.noise(with_paired(paired("better", 0.41, 0.92))) == (
        "Better, and beyond noise: +0.41 to +0.92; 5 cases better, 1 worse, 2 the same."
    )
    assert words.noise(with_paired(paired("worse", -0.5, -0.125, wins=0))) == (
        "Worse, and beyond noise: -0.50 to -0.12; 0 cases better, 1 worse, 2 the same."
    )
    assert words.noise(with_paired(paired("no clear difference", -0.1, 0.3))) == (
        "No clear difference: the change could be noise (-0.10 to +0.30); "
        "5 cases better, 1 worse, 2 the same."
    )
    assert words.noise(with_paired(paired("too few cases", 0.667, 0.667))) == (
        "Too few cases to tell a change from noise (+0.67 to +0.67); "
        "5 cases better, 1 worse, 2 the same."
    )
    assert words.noise(summary(0.4, 0.8)) is None
