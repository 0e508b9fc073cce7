"""The eval run page's words: the headline each way, and a stopped flow case."""

from __future__ import annotations

from dataclasses import replace

from kindgi_dev.console import words
from kindgi_dev.domain.cost import RunCost, TokenCount
from kindgi_dev.domain.metrics import Metric
from kindgi_dev.domain.paired import Interval, Paired
from kindgi_dev.domain.results import Baseline, Candidate

PICKER = Candidate(kind="agent", version="0.2.0", agent_id="acme-ops.article-picker")


def summary(
    before: float | None, after: float | None, diverged: int = 0, tried: Candidate = PICKER
) -> words.SummaryView:
    """The view of a summary of 3 cases, all corrected, against the recorded runs."""
    share = Metric(baseline=before, candidate=after, delta=None, n=3, weight=3.0,
                   baseline_n=3, baseline_weight=3.0)  # fmt: skip
    return words.view_of(tried, Baseline(kind="recorded"), 3, diverged, share)


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
    flow = summary(0.5, 1.0, tried=Candidate(kind="flow", version="1.1.0",
                                             flow_id="acme-ops.triage"))  # fmt: skip
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
    priced = RunCost(6, TokenCount(1000, 234), 0.0123)
    assert words.cost_line(priced) == (
        "What it cost: 6 model calls, 1,234 tokens (1,000 in, 234 out), $0.0123."
    )
    unpriced = RunCost(1, TokenCount(5, 2))
    assert words.cost_line(unpriced) == (
        "What it cost: 1 model call, 7 tokens (5 in, 2 out), no price: its provider names none."
    )
    assert words.cost_line(None) is None


def paired(verdict: str, low: float, high: float, wins: int = 5) -> Paired:
    return Paired(wins=wins, losses=1, ties=2, n=8, interval=Interval(low, high, 0.95),
                  resamples=2000, seed=25, beyond_noise=verdict in ("better", "worse"),
                  verdict=verdict)  # fmt: skip


def with_paired(found: Paired) -> words.SummaryView:
    shown = summary(0.4, 0.8)
    return replace(shown, share=replace(shown.share, paired=found))


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


def test_a_flow_against_another_of_its_versions_names_only_the_version() -> None:
    triage = Candidate(kind="flow", version="1.1.0", flow_id="acme-ops.triage")
    share = Metric(baseline=0.5, candidate=0.5, delta=0.0, n=2, weight=2.0, baseline_n=2,
                   baseline_weight=2.0)  # fmt: skip
    older = Baseline(kind="version", flow_id="acme-ops.triage", version="1.0.0", via="explicit")
    assert words.against(words.view_of(triage, older, 4, 0, share)) == (
        "acme-ops.triage 1.1.0 against 1.0.0"
    )
    live = replace(older, version="1.2.0", via="live")
    assert words.headline(words.view_of(triage, live, 4, 0, share)) == (
        "People's corrections rate acme-ops.triage 1.1.0 the same as the live version (1.2.0): "
        "50% marked right with 1.2.0, 50% with 1.1.0, on the 2 of 4 cases with answers people "
        "corrected."
    )
