"""Scores and comparison metrics, with the spec's worked examples."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.api.eval_results import CaseScoreAnswer as ScoreAnswer
from kindgi_dev.api.eval_results import ComparisonMetrics
from kindgi_dev.api.routing import shape
from kindgi_dev.api.wire import wire_number
from kindgi_dev.domain.items import Item, items_of
from kindgi_dev.domain.metrics import (
    CaseScore,
    Metrics,
    Verdict,
    attach_values,
    carried_verdicts,
    case_coverage,
    comparison_metrics,
    judged_coverage,
    pass_rate,
    precision_at_k,
    score_case,
    weighted_yes_share,
)

CASES = [
    ("kb-101", "kb-102", "kb-103"),
    ("kb-201", "kb-203", "kb-202"),
    ("kb-301", "kb-303", "kb-201"),
]


def turn(ids: tuple[str, ...], answer: str) -> dict[str, Any]:
    """An article picker turn answering with these articles and this text."""
    return {
        "output": {"articles": [{"id": i, "title": f"Article {i}"} for i in ids]},
        "appended": [
            {"role": "user", "content": "question"},
            {"role": "agent", "content": None, "toolCalls": [{"toolId": "acme-ops.search"}]},
            {"role": "tool", "content": {}},
            {"role": "agent", "content": answer},
        ],
    }


def verdict(key: str, rank: int | None, yes: bool, **extra: Any) -> Verdict:
    """A verdict of weight 1 without a class, unless told otherwise."""
    fields: dict[str, Any] = {"weight": 1.0, "restricted": False, **extra}
    return Verdict(key, None, rank, yes, **fields)


def answered(metrics: Metrics) -> dict[str, Any]:
    """The metrics as an eval run's answer shows them."""
    found: dict[str, Any] = shape(ComparisonMetrics, metrics)
    return found


def answered_score(score: CaseScore) -> dict[str, Any]:
    """One output's score as a case result in an answer shows it."""
    found: dict[str, Any] = shape(ScoreAnswer, score)
    return found


def picker_verdicts(ids: tuple[str, ...]) -> list[Verdict]:
    """First article right, the other two wrong."""
    return [verdict(key, rank, rank == 0) for rank, key in enumerate(ids)]


def test_article_picker_comparison() -> None:
    baseline, candidate = [], []
    for ids in CASES:
        verdicts = picker_verdicts(ids)
        before = items_of(turn(ids, "Here are three articles."))
        after = items_of(turn(ids[:1], "This one answers it."))
        baseline.append(score_case(before, verdicts, k=10, restricted_only=False))
        candidate.append([score_case(after, verdicts, k=10, restricted_only=False)])
    assert baseline[0] == CaseScore(1.0, 3.0, 4, 3, 1.0, 3.0)
    assert answered_score(candidate[0][0]) == {
        "yesWeight": 1,
        "totalWeight": 1,
        "items": 2,
        "judgedItems": 1,
        "topK": {"yesWeight": 1, "totalWeight": 1},
    }
    metrics = answered(comparison_metrics(baseline, candidate, k=10))
    assert metrics == {
        "weightedYesShare": {
            "baseline": 0.3333333333333333,
            "candidate": 1,
            "delta": 0.6666666666666667,
            "n": 3,
            "weight": 3,
            "baselineN": 3,
            "baselineWeight": 9,
            "direction": "higher",
        },
        "judgedCoverage": {
            "baseline": 0.75,
            "candidate": 0.5,
            "delta": -0.25,
            "n": 3,
            "weight": 3,
            "baselineN": 3,
            "baselineWeight": 9,
            "direction": "higher",
        },
        "weightedPrecisionAtK": {
            "k": 10,
            "baseline": 0.3333333333333333,
            "candidate": 1,
            "delta": 0.6666666666666667,
            "n": 3,
            "weight": 3,
            "baselineN": 3,
            "baselineWeight": 9,
            "direction": "higher",
        },
    }


def class_table_scores(*, restricted_only: bool) -> list[CaseScore]:
    """The spec's three cases: one corrected under an unrestricted class, two restricted."""
    keys = [("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3")]
    yeses = [(True, True, False), (True, True, False), (True, False, False)]
    restricted = [False, True, True]
    scores = []
    for ids, marks, is_restricted in zip(keys, yeses, restricted, strict=True):
        items = [Item(key, f"/output/x/{r}", r, {"id": key}, True) for r, key in enumerate(ids)]
        verdicts = [
            verdict(key, r, yes, restricted=is_restricted)
            for r, (key, yes) in enumerate(zip(ids, marks, strict=True))
        ]
        scores.append(score_case(items, verdicts, k=10, restricted_only=restricted_only))
    return scores


def test_class_table_as_recorded() -> None:
    scores = class_table_scores(restricted_only=False)
    share = weighted_yes_share(scores)
    assert (share.value, share.n, share.weight) == (0.5555555555555556, 3, 9.0)
    assert judged_coverage(scores).value == 1.0
    metrics = answered(comparison_metrics(scores, [[s] for s in scores], k=10))
    assert metrics["weightedYesShare"]["baseline"] == 0.5555555555555556
    assert metrics["weightedYesShare"]["delta"] == 0
    assert metrics["judgedCoverage"]["candidate"] == 1


def test_class_table_restricted_only() -> None:
    scores = class_table_scores(restricted_only=True)
    assert scores[0] == CaseScore(0.0, 0.0, 3, 0, 0.0, 0.0)
    share = weighted_yes_share(scores)
    assert (share.value, share.n, share.weight) == (0.5, 2, 6.0)
    coverage = judged_coverage(scores)
    assert (coverage.value, coverage.n) == (0.6666666666666666, 3)
    assert case_coverage is judged_coverage
    metrics = answered(comparison_metrics(scores, [[s] for s in scores], k=10))
    assert metrics["weightedYesShare"]["n"] == 2
    assert metrics["judgedCoverage"]["baseline"] == 0.6666666666666666


def test_class_weights_weigh_verdicts() -> None:
    item = Item("kb-1", "/output/a/0", 0, {"id": "kb-1"}, True)
    verdicts = [verdict("kb-1", 0, True, weight=3.0), verdict("kb-1", 0, False, weight=0.5)]
    score = score_case([item], verdicts, k=10, restricted_only=False)
    assert score == CaseScore(3.0, 3.5, 1, 1, 3.0, 3.5)
    assert answered_score(score)["totalWeight"] == 3.5


def test_top_k_counts_only_ranked_items_below_k() -> None:
    items = [
        Item("a", "/output/l/0", 0, {"id": "a"}, True),
        Item("b", "/output/l/1", 1, {"id": "b"}, True),
        Item("c", "/output/l/2", 2, {"id": "c"}, True),
        Item("answer", "/appended/1/content", None, "text", False),
    ]
    verdicts = [
        verdict("a", 0, False),
        verdict("b", 1, True),
        verdict("c", 2, True),
        verdict("answer", None, True, value="text"),
    ]
    score = score_case(items, verdicts, k=2, restricted_only=False)
    assert score == CaseScore(3.0, 4.0, 4, 4, 1.0, 2.0)
    assert precision_at_k([score]).value == 0.5


def test_identified_items_carry_at_any_place_and_others_only_unchanged() -> None:
    moved = Item("kb-101", "/output/articles/2", 2, {"id": "kb-101", "title": "new"}, True)
    yes = verdict("kb-101", 0, True)
    assert carried_verdicts(moved, [yes]) == [yes]
    answer = verdict("answer", None, False, value="Old text")
    same = Item("answer", "/appended/3/content", None, "Old text", False)
    reworded = Item("answer", "/appended/3/content", None, "New text", False)
    assert carried_verdicts(same, [answer]) == [answer]
    assert carried_verdicts(reworded, [answer]) == []


def test_attach_values_fills_values_from_the_corrected_run() -> None:
    corrected = items_of(turn(("kb-1",), "Old text"))
    verdicts = attach_values(
        [verdict("answer", None, True), verdict("kb-1", 0, True, value="kept")], corrected
    )
    assert verdicts[0].value == "Old text"
    assert verdicts[1].value == "kept"


def test_spread_with_three_repetitions() -> None:
    right = CaseScore(1.0, 1.0, 2, 1, 1.0, 1.0)
    wrong = CaseScore(0.0, 1.0, 2, 1, 0.0, 1.0)
    mixed = CaseScore(1.0, 3.0, 4, 3, 1.0, 3.0)
    baseline = [mixed, mixed]
    candidate = [[right, mixed, wrong], [right, right, right]]
    metrics = answered(comparison_metrics(baseline, candidate, k=10))
    share = metrics["weightedYesShare"]
    # Repetitions: 2/2, 2/4, 1/2.
    assert share["candidate"] == 0.6666666666666666
    assert share["spread"] == 0.5
    assert share["delta"] == 0.3333333333333333
    assert share["n"] == 2
    assert share["weight"] == 2.6666666666666665
    coverage = metrics["judgedCoverage"]
    # Repetitions: 2/4, 4/6, 2/4.
    assert coverage["candidate"] == 0.5555555555555555
    assert coverage["spread"] == 0.16666666666666663
    precision = metrics["weightedPrecisionAtK"]
    # Repetitions: mean(1, 1), mean(1/3, 1), mean(0, 1).
    assert precision["candidate"] == 0.7222222222222222
    assert precision["spread"] == 0.5


def test_one_repetition_has_no_spread_and_missing_sides_are_null() -> None:
    unjudged = CaseScore(0.0, 0.0, 2, 0, 0.0, 0.0)
    metrics = answered(comparison_metrics([unjudged], [[unjudged]], k=10))
    share = metrics["weightedYesShare"]
    assert share == {
        "baseline": None,
        "candidate": None,
        "delta": None,
        "n": 0,
        "weight": 0,
        "baselineN": 0,
        "baselineWeight": 0,
        "direction": "higher",
    }
    assert metrics["judgedCoverage"]["candidate"] == 0
    empty = answered(comparison_metrics([], [], k=5))
    assert empty["weightedPrecisionAtK"]["k"] == 5
    assert empty["judgedCoverage"]["candidate"] is None


def test_pass_rate() -> None:
    assert pass_rate([True, False, True, True]) == 0.75
    assert pass_rate([]) is None


@pytest.mark.parametrize(("value", "wire"), [(1.0, 1), (0.5, 0.5), (None, None), (2, 2)])
def test_wire_number(value: float | None, wire: float | int | None) -> None:
    assert wire_number(value) == wire
    assert type(wire_number(value)) is type(wire)
