"""The quick checks that let most stored text go unread (#29): each says what the patterns
they replace said, on random text made of what those patterns look at."""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from kindgi_dev.domain.stored_values import (
    EVAL_RESULT,
    FROZEN_CASE,
    ITEMS,
    Rules,
    may_need_repair_plain,
    may_need_repair_written,
    overflows,
    repaired,
)
from kindgi_dev.domain.test_set_files import case_text, plain_case_text

OVERFLOW = re.compile(r"(?:^|[:,\[])\s*-?[0-9.]+[eE]\+?[0-9]{3}|[0-9]{309}")
"""The pattern `overflows` replaced, as m0029 first read stored text with it."""

PIECES = [
    "1", "9", "0", ".", "e", "E", "+", "-", ":", ",", "[", "]", " ", "\t", "\n", "\x1c",
    "\x85", "\u2003", "\xa0", "é", "a", '"', "{", "1e999", "1E+308", "9e123", "4e", "12",
    "0" * 150, "7" * 200,
]  # fmt: skip
"""What a number, its exponent and what may stand before it are made of, spaces ASCII and
not, a letter past ASCII, and long runs of digits."""


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))


def test_overflows_finds_what_the_pattern_found_and_is_sure_where_it_did_not() -> None:
    rng = random.Random(29)
    found = missed = unsure = 0
    for _ in range(40_000):
        text = _text(rng)
        expected = OVERFLOW.search(text) is not None
        if expected:
            assert overflows(text), repr(text)
            found += 1
        elif overflows(text):
            assert not text.isascii(), f"only a byte past ASCII makes it unsure: {text!r}"
            unsure += 1
        else:
            missed += 1
    assert found > 3000 and missed > 3000 and unsure > 100, (found, missed, unsure)


@pytest.mark.parametrize(
    "text",
    ['{"n":1e999}', '{"n": -1E400}', "2e+308", "[1,\t 0.5e300]", '{"n":1' + "0" * 400 + "}"],
)
def test_overflows_finds_each_number_that_reads_as_infinity(text: str) -> None:
    assert overflows(text)


@pytest.mark.parametrize(
    "text", ['{"id":"9e123456-4e99"}', '{"n":1e99,"m":-2.5e-300}', '{"s":"x1e999"}']
)
def test_overflows_leaves_ids_and_small_exponents(text: str) -> None:
    assert not overflows(text)


RANK_KEYS = Rules(
    {"rank": ITEMS.numbers["rank"], "weight": FROZEN_CASE.numbers["judgeClassWeight"]}
)


@pytest.mark.parametrize("rules", [ITEMS, FROZEN_CASE, EVAL_RESULT, RANK_KEYS])
def test_a_named_fields_value_is_judged_as_one_pattern_judged_it(rules: Rules) -> None:
    pattern = re.compile(
        '"(?:'
        + "|".join(f'(?:{re.escape(name[1:-1])})"{after.pattern}' for name, after in rules.unusual)
        + ")"
    )
    rng = random.Random(30)
    names = [*(name for name, _ in rules.unusual[:4]), '"x"']
    values = [" : 3", ":2.5", ":-1", ":null", ":1000001", ": [", ':"2"', ":true", ":1e-5"]
    for _ in range(5000):
        text = "{" + ",".join(rng.choice(names) + rng.choice(values) for _ in range(3)) + "}"
        assert rules.holds_unusual(text) == (pattern.search(text) is not None), text


def test_a_raw_lone_surrogate_is_read_to_be_repaired() -> None:
    case = {"id": "c1", "run": {"output": "half \ud800 a pair"}}
    text = case_text(case)
    assert may_need_repair_written(text, FROZEN_CASE)
    assert repaired(case, FROZEN_CASE) is not case


def test_a_case_as_the_export_writes_it_goes_unread_and_reads_back_unchanged() -> None:
    case = {
        "id": "9e123456-4e99-4000-8000-1e9990000000",
        "judgeClassWeight": 2.5,
        "expect": {"items": [{"key": "kb-1", "pointer": "/output/articles/0", "rank": 0}]},
        "run": {"output": {"articles": [{"id": "kb-1", "title": "Réinitialiser", "score": 1e99}]}},
    }
    text = case_text(case)
    assert not may_need_repair_written(text, FROZEN_CASE)
    assert repaired(case, FROZEN_CASE) is case
    assert json.loads(text) == case


def test_a_case_text_is_the_utf8_json_whatever_its_characters() -> None:
    rng = random.Random(31)
    chars = ["a", "é", "\x00", "\x1f", "\x7f", "\\", "u", "\\u00e9", '"', "\u2028", "😀", "\ud800"]
    for _ in range(3000):
        key = "".join(rng.choice(chars) for _ in range(rng.randint(0, 4)))
        value = "".join(rng.choice(chars) for _ in range(rng.randint(0, 6)))
        case = {key: [value, {"b": 1.5, "a": None}], "z": value}
        expected = json.dumps(case, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert case_text(case) == expected


def test_a_plain_case_text_is_the_case_text_and_its_check_what_the_whole_check_says() -> None:
    """`plain_case_text` writes what `case_text` writes, and calls it plain only when it holds
    neither an escape nor a number that isn't finite: there `may_need_repair_plain` says
    what `may_need_repair_written` says, and where it isn't plain the text is checked whole."""
    rng = random.Random(37)
    strings = ["a", "é", "\ud800", "\\u", "NaN", "Infinity", '"rank"', "args", "\x01"]
    numbers: list[object] = [0, 7, -3, 2.5, 1e99, 1e300, 10**400, math.nan, math.inf, -math.inf]
    plains = 0
    for _ in range(3000):
        value = rng.choice(strings) + rng.choice(strings)
        case = {"id": value, "rank": rng.choice(numbers), "run": {"output": [rng.choice(numbers)]}}
        text, plain = plain_case_text(case)
        assert text == case_text(case)
        if plain:
            plains += 1
            assert text.isascii() and "\\u" not in text
            assert (
                may_need_repair_plain(text, FROZEN_CASE)
                == may_need_repair_written(text, FROZEN_CASE)
                or "NaN" in value
                or "Infinity" in value
            ), text
        else:
            assert not text.isascii() or "\\u" in text or "NaN" in text or "Infinity" in text
    assert 0 < plains < 3000


def test_a_plain_case_that_holds_nan_as_words_is_kept_as_its_text() -> None:
    """A string saying NaN is no number: the plain check leaves such a case unread, and a
    read of it (the whole check's, which looks for the word) changes nothing either."""
    case = {"id": "NaN or Infinity", "run": {"output": {"articles": [{"id": "kb-1"}]}}}
    text, plain = plain_case_text(case)
    assert plain and not may_need_repair_plain(text, FROZEN_CASE)
    assert may_need_repair_written(text, FROZEN_CASE)
    assert case_text(repaired(case, FROZEN_CASE)) == text
