"""The repair of stored values no answer could render: clamped, cut, their surrogates gone."""

from __future__ import annotations

import json
import math
import random
import sys
from typing import Any

import pytest

from kindgi_dev.domain.bounds import ARGS_DEPTH, MAX_NUMBER, MAX_RANK, MAX_WEIGHT, MIN_NUMBER
from kindgi_dev.domain.stored_values import (
    COPY,
    COPY_DEPTH,
    DECISIONS,
    EVAL_RESULT,
    EVAL_SETTINGS,
    FROZEN_CASE,
    ITEMS,
    MAX_SUM,
    RANK,
    SUM,
    WEIGHT,
    Rules,
    bounded,
    clean_text,
    cut_marker,
    may_need_repair,
    repaired,
    repaired_suite_case,
)

NAN, INF = float("nan"), float("inf")


def nested(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def decisions(args: Any) -> dict[str, Any]:
    return {"verdict": "wrong", "shouldCall": [{"toolId": "acme.search", "args": args}]}


def test_numbers_are_clamped_into_their_fields_bounds() -> None:
    assert bounded(2**62, RANK) == MAX_RANK and bounded(-3, RANK) == 0
    assert bounded(2.6, RANK) == 3 and isinstance(bounded(2.0, RANK), int)
    assert bounded(None, RANK) is None and bounded(NAN, RANK) is None
    assert bounded(1e308, WEIGHT) == MAX_WEIGHT and bounded(INF, WEIGHT) == MAX_WEIGHT
    assert bounded(NAN, WEIGHT) == 1 and bounded(None, WEIGHT) == 1 and bounded("2", WEIGHT) == 1
    assert bounded(-INF, SUM) == 0 and bounded(INF, SUM) == MAX_SUM
    assert bounded(True, SUM) is True, "a boolean is left as it is"
    kept = 2.5
    assert bounded(kept, WEIGHT) is kept


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert clean_text("a\ud800b") == "a\ufffdb"
    assert clean_text("\udfff") == "\ufffd"
    assert clean_text("\ud83d\ude00") == "\U0001f600", "two halves stored apart make their pair"
    text = "plain é"
    assert clean_text(text) is text


def test_a_correction_stored_by_the_old_console_form_reads_as_the_api_could_have_kept_it() -> None:
    stored = decisions({"deep": nested(500), "big": 1e23, "nan": NAN, "inf": -INF, "s": "\ud800"})
    fixed = repaired(stored, DECISIONS)
    args = fixed["shouldCall"][0]["args"]
    assert depth(args) == ARGS_DEPTH
    assert (args["big"], args["nan"], args["inf"], args["s"]) == (MAX_NUMBER, None, MIN_NUMBER,
                                                                  "\ufffd")  # fmt: skip
    innermost = args["deep"]
    while isinstance(innermost, dict):
        innermost = innermost["a"]
    assert innermost == cut_marker(ARGS_DEPTH)
    assert json.dumps(fixed, allow_nan=False)


def test_a_value_that_reads_back_is_returned_as_it_is() -> None:
    given = decisions({"q": "reset", "n": [1, 2.5, None, True], "deep": nested(ARGS_DEPTH - 1)})
    assert repaired(given, DECISIONS) is given
    assert may_need_repair(json.dumps(given), DECISIONS), "numbers as given are always read"
    for value, rules in (
        ([{"key": "kb-1", "rank": 3}, {"key": "kb-2", "rank": None}], ITEMS),
        ({"a": nested(COPY_DEPTH - 2), "big": 1e99}, COPY),
    ):
        assert repaired(value, rules) is value
        assert not may_need_repair(json.dumps(value), rules)


def test_a_frozen_case_keeps_its_run_copy_but_not_its_out_of_bound_weight_and_ranks() -> None:
    case = {
        "id": "c1",
        "judgeClassWeight": 1e308,
        "expect": {"items": [{"key": "kb-1", "rank": 10**15, "verdict": "right"}],
                   "decisions": decisions({"n": 1e23})},
        "run": {"output": {"big": 1e300, "deep": nested(COPY_DEPTH + 5), "nan": NAN}},
    }  # fmt: skip
    fixed = repaired(case, FROZEN_CASE)
    assert fixed["judgeClassWeight"] == MAX_WEIGHT
    assert fixed["expect"]["items"][0]["rank"] == MAX_RANK
    assert fixed["expect"]["decisions"]["shouldCall"][0]["args"] == {"n": MAX_NUMBER}
    output = fixed["run"]["output"]
    assert output["big"] == 1e300, "a copied number need only be finite"
    assert output["nan"] is None and depth(fixed) == COPY_DEPTH
    assert repaired({**case, "judgeClassWeight": None}, FROZEN_CASE)["judgeClassWeight"] == 1


def test_a_suite_items_weights_are_capped_by_its_verdicts_at_the_largest_weight() -> None:
    item = {"key": "kb-1", "yes": 1, "no": 2, "yesWeight": 1e308, "totalWeight": INF,
            "restricted": {"yesWeight": None, "totalWeight": 5e6, "judgmentIds": []}}  # fmt: skip
    fixed = repaired_suite_case({"caseId": "c", "items": [item], "input": "hi"})
    assert fixed["items"][0]["yesWeight"] == MAX_WEIGHT
    assert fixed["items"][0]["totalWeight"] == 3 * MAX_WEIGHT
    assert fixed["items"][0]["restricted"] == {"yesWeight": 0, "totalWeight": 3 * MAX_WEIGHT,
                                               "judgmentIds": []}  # fmt: skip
    sums = {"yesWeight": 2, "totalWeight": 3, "restricted": {"yesWeight": 0, "totalWeight": 0}}
    fine = {"caseId": "c", "items": [{**item, **sums}]}
    assert repaired_suite_case(fine) is fine


def test_an_eval_runs_sums_and_metrics_are_finite_again() -> None:
    score = {"yes_weight": INF, "total_weight": None, "items": 4, "judged_items": NAN,
             "top_k_yes": 1e308, "top_k_total": INF}  # fmt: skip
    paired = {"wins": 1, "losses": 0, "ties": 2, "n": 3, "resamples": 2000, "seed": 25,
              "interval": {"low": NAN, "high": None, "level": 0.95}}  # fmt: skip
    metric = {"baseline": NAN, "candidate": 0.5, "delta": NAN, "n": 3, "weight": INF,
              "baseline_n": 3, "baseline_weight": INF, "spread": None, "k": 10,
              "paired": paired}  # fmt: skip
    stored = {
        "summary": {"cases": 3, "metrics": {"weighted_yes_share": metric}},
        "per_case": [{"baseline": score, "candidate": [score], "diverged": False,
                      "corrections": [{"passed": True, "repetitions": 1}],
                      "tools": [{"arguments": {"n": INF}}]}],
    }  # fmt: skip
    fixed = repaired(stored, EVAL_RESULT)
    shown = fixed["summary"]["metrics"]["weighted_yes_share"]
    assert (shown["baseline"], shown["candidate"], shown["delta"]) == (None, 0.5, None)
    assert (shown["weight"], shown["baseline_weight"]) == (MAX_SUM, MAX_SUM)
    assert shown["spread"] is None
    assert shown["paired"] == {**paired, "interval": None}, "an interval not computed is none"
    kept = {"low": -0.5, "high": 0.25, "level": 0.95}
    assert repaired({"interval": kept}, EVAL_RESULT)["interval"] is kept
    case = fixed["per_case"][0]
    assert case["baseline"] == {"yes_weight": MAX_SUM, "total_weight": 0, "items": 4,
                                "judged_items": 0, "top_k_yes": MAX_SUM,
                                "top_k_total": MAX_SUM}  # fmt: skip
    assert case["corrections"] == [{"passed": True, "repetitions": 1}]
    assert case["tools"][0]["arguments"]["n"] == sys.float_info.max
    assert math.isfinite(json.loads(json.dumps(fixed))["per_case"][0]["candidate"][0]["top_k_yes"])


def test_an_eval_runs_settings_come_back_into_their_bounds() -> None:
    fixed = repaired(
        {"k": 1000, "repetitions": NAN, "sample": {"holdOutShare": 1.5}}, EVAL_SETTINGS
    )
    assert fixed == {"k": 100, "repetitions": 1, "sample": {"holdOutShare": 0.9}}


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ('{"args": {"n": NaN}}', DECISIONS),
        ('{"n": Infinity}', COPY),
        ('{"n": 1e999}', COPY),
        ("-1E400", COPY),
        ('{"n": 1' + "0" * 400 + "}", COPY),
        ('{"s": "\\ud800"}', COPY),
        ('{"s": "\\uDBFF"}', Rules()),
        ("[" * (ARGS_DEPTH + 1) + "]" * (ARGS_DEPTH + 1), DECISIONS),
        ('{"shouldCall": [{"args": {"n": 2}}]}', DECISIONS),
        ('[{"rank": 1000001}]', ITEMS),
        ('[{"rank": -1}]', ITEMS),
        ('[{"rank": 2.5}]', ITEMS),
        ('[{"rank" : "2"}]', ITEMS),
        ('{"judgeClassWeight": null}', FROZEN_CASE),
        ('{"judgeClassWeight":1e+308}', FROZEN_CASE),
        ('{"yes_weight":1000000.5}', EVAL_RESULT),
        ('{"items":2.0}', EVAL_RESULT),
        ('{"interval":{"low":null,"high":0.5}}', EVAL_RESULT),
        ('{"k":10}', EVAL_SETTINGS),
    ],
)
def test_every_kind_of_unreadable_text_is_read_to_be_repaired(text: str, rules: Any) -> None:
    assert may_need_repair(text, rules)


def test_what_is_left_unread_reads_back_unchanged() -> None:
    texts = [
        ('{"judgeClassWeight":2.5,"expect":{"items":[{"rank":0},{"rank":null}]},'
         '"id":"9e123456-4e99-4000-8000-1e9990000000"}', FROZEN_CASE),
        ('{"baseline":{"yes_weight":1.0,"items":4},"delta":-0.25,"spread":null,"passed":true,'
         '"candidate":[{"top_k_yes":0.5}],"metrics":{"n":2,"weight":999999.25}}', EVAL_RESULT),
        ('{"id":"kb-1","title":"Reset your password","score":-1.5e-7}', COPY),
    ]  # fmt: skip
    for text, rules in texts:
        assert not may_need_repair(text, rules)
        value = json.loads(text)
        assert repaired(value, rules) is value


def _random_value(rng: random.Random, keys: list[str], levels: int) -> Any:
    """A JSON value of the named fields and others, with now and then a value to repair."""
    pick = rng.random()
    if levels > 0 and pick < 0.3:
        return {rng.choice(keys): _random_value(rng, keys, levels - 1) for _ in range(3)}
    if levels > 0 and pick < 0.4:
        return [_random_value(rng, keys, levels - 1) for _ in range(2)]
    return rng.choice([
        0, 7, 2.5, -1, -0.25, 999_999, 1_000_000, 1_000_001, 2**53 + 1, 2**63, 1e23, 1e300,
        -1e300, 1.5e-7, NAN, INF, -INF, None, True, "kb-1", "9e123", "a\ud800", "\U0001f600",
    ])  # fmt: skip


@pytest.mark.parametrize("rules", [DECISIONS, ITEMS, FROZEN_CASE, EVAL_RESULT, EVAL_SETTINGS,
                                   COPY])  # fmt: skip
def test_no_row_needing_repair_is_left_unread(rules: Any) -> None:
    rng = random.Random(22)
    keys = ["x", "rank", "args", "run", "interval", "low", "yes_weight", "items", "k", "weight"]
    needing = kept = 0
    for _ in range(3000):
        value = _random_value(rng, keys, 4)
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=bool(rng.random() < 0.5))
        if "\ud800" in text:
            continue  # a lone surrogate can't be stored as UTF-8 text, only escaped
        stored = json.loads(text)
        if repaired(stored, rules) is not stored:
            assert may_need_repair(text, rules), text
            needing += 1
        else:
            kept += 1
    assert needing > 300 and kept > 300, "both kinds of document were tried"
