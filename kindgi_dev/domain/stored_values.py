"""Stored values made readable again: the rule that repairs a row no answer could render.

Older versions (and the console's forms) kept values the API refuses: arrays and objects
nested hundreds of levels deep, `NaN` and `Infinity`, numbers beyond the bounds of
`domain.bounds`, strings with lone surrogates. Each is repaired to the nearest value that
can be kept: a number is clamped into its field's range (a NaN, or a null where a number
is required, becomes the field's default), nesting deeper than the limit is cut there and
a marker put in its place, and a lone surrogate becomes U+FFFD. A value left as it was is
returned as the same object, so `repaired(x, …) is x` says nothing needed repair.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from .bounds import ARGS_DEPTH, MAX_DEPTH, MAX_NUMBER, MAX_RANK, MAX_WEIGHT, MIN_NUMBER
from .json import JSON, JSONObject

COPY_DEPTH = 200
"""How deeply a value copied from a run (its input, output, tool calls) may nest: with the
few levels an answer wraps it in, still within what pydantic serializes (255)."""

_WHOLE = r"[0-9]{1,6}(?![0-9.eE])"
_DECIMAL = r"[0-9]{1,6}(?:\.[0-9]+)?(?:[eE]-[0-9]+)?(?![0-9.eE])"


def cut_marker(depth: int) -> str:
    """What stands where a value nested deeper than `depth` levels was cut."""
    return f"[cut by kindgi dev: this value nested deeper than {depth} levels]"


@dataclass(frozen=True)
class Bound:
    """The range a stored number must lie in; `missing` stands for a NaN (and for a null or
    a non-number where one is `required`); `whole` numbers are rounded."""

    low: float
    high: float
    missing: float | None = None
    whole: bool = False
    required: bool = False


GIVEN = Bound(MIN_NUMBER, MAX_NUMBER)
"""A number inside a value a request gave (a call's args, a spec)."""
COPIED = Bound(-sys.float_info.max, sys.float_info.max)
"""A number inside a value copied from a run: any finite number."""
RANK = Bound(0, MAX_RANK, whole=True)
WEIGHT = Bound(0, MAX_WEIGHT, missing=1.0, required=True)
"""A judge class's weight; a missing one weighs what a verdict without a class weighs."""
MAX_SUM = 2**53
"""The largest sum kept: a double holds every whole number up to it exactly (weights of at
most `MAX_WEIGHT` reach it only past nine billion verdicts)."""
SUM = Bound(0, MAX_SUM, missing=0.0, required=True)
"""A sum of weights."""
COUNT = Bound(0, MAX_NUMBER, missing=0, whole=True, required=True)
SHARE = Bound(-MAX_SUM, MAX_SUM)
"""A metric's value or change: none when it could not be computed."""


def clean_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (a pair stored as two halves is
    joined into its character)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def bounded(value: object, bound: Bound) -> JSON:
    """A stored number within `bound`; a null, or anything not a number, as `bound` says.
    A boolean is left as it is (`passed` is one in one record and a count in another)."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, int | float):
        if value is None and not bound.required:
            return None
        return bound.missing
    if isinstance(value, float) and math.isnan(value):
        return bound.missing
    clamped = min(max(value, bound.low), bound.high)
    if bound.whole and isinstance(clamped, float):
        clamped = round(clamped)
    return value if clamped == value and type(clamped) is type(value) else clamped


@dataclass(frozen=True)
class Open:
    """A part the store keeps as it was given or copied: only nesting and numbers bound."""

    depth: int
    numbers: Bound


@dataclass(frozen=True)
class Rules:
    """How one stored kind of JSON is repaired: the bound of each numeric field by name, the
    parts (by name) kept open, each with its own limits, and the parts that are none (null)
    when a number of theirs is not finite or missing (an interval that couldn't be computed);
    anything else nests at most `COPY_DEPTH` levels and holds finite numbers."""

    numbers: Mapping[str, Bound] = field(default_factory=dict)
    open: Mapping[str, Open] = field(default_factory=dict)
    dropped: frozenset[str] = frozenset()

    @cached_property
    def unusual(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        """Each named field as it is spelled in JSON text, with the pattern of what after it
        means its value is one `may_need_repair` can't vouch for."""
        return tuple(
            (f'"{key}"', re.compile(f"\\s*:(?!\\s*(?:{_usual(bound)}))"))
            for key, bound in self.numbers.items()
        )

    @cached_property
    def least_depth(self) -> int:
        """The shallowest nesting a part may reach before it is cut."""
        return min((part.depth for part in self.open.values()), default=COPY_DEPTH)

    @cached_property
    def given_parts(self) -> tuple[str, ...]:
        """The open parts whose numbers are bounded as given, as JSON text spells their name:
        a document holding one is read."""
        return tuple(f'"{key}"' for key, part in self.open.items() if part.numbers is not COPIED)

    def holds_unusual(self, text: str) -> bool:
        """Whether a named field in `text` has a value `may_need_repair` can't vouch for: each
        field's name found by a substring search, and what follows it matched there."""
        for name, after in self.unusual:
            at = text.find(name)
            while at >= 0:
                if after.match(text, at + len(name)):
                    return True
                at = text.find(name, at + 1)
        return False


def _usual(bound: Bound) -> str:
    """What a field of this bound may hold and be left as it is, as a pattern: a number below
    1,000,000 (whole when it must be, signed when it may be) when the bound is that wide."""
    wide = bound.low <= 0 and bound.high >= 1_000_000
    number = (_WHOLE if bound.whole else _DECIMAL) if wide else "(?!)"
    if bound.low <= -1_000_000:
        number = f"-?{number}"
    return f"{number}|true|false|\\[|\\{{" + ("" if bound.required else "|null")


def repaired(value: object, rules: Rules | Open) -> JSON:
    """`value` (a stored JSON document of the kind `rules` describes) made readable; the
    same object when it already was."""
    if isinstance(rules, Open):
        return _walk(value, None, rules.numbers, rules.depth, rules.depth)
    return _walk(value, rules, COPIED, COPY_DEPTH, COPY_DEPTH)


def _walk(
    value: object, rules: Rules | None, number: Bound, left: int, limit: int, key: str = ""
) -> JSON:
    """One value at `left` levels from the limit; `rules` None inside an open part."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict | list):
        if left <= 0:
            return cut_marker(limit)
        if isinstance(value, list):
            items = [_walk(v, rules, number, left - 1, limit) for v in value]
            same = all(new is old for new, old in zip(items, value, strict=True))
            return value if same else items
        pairs = [
            (clean_text(k), _child(k, v, rules, number, left, limit)) for k, v in value.items()
        ]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if rules is not None and key in rules.numbers:
        return bounded(value, rules.numbers[key])
    if isinstance(value, int | float):
        return bounded(value, number)
    if value is None:
        return None
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _child(
    key: str, value: object, rules: Rules | None, number: Bound, left: int, limit: int
) -> JSON:
    """A field's value: an open part walked with its own limits, a part with a number that
    isn't one dropped, any other by the rules."""
    if rules is not None and key in rules.dropped and _unfinished(value):
        return None
    if rules is not None and key in rules.open:
        part = rules.open[key]
        depth = min(part.depth, left - 1)
        return _walk(value, None, part.numbers, depth, part.depth)
    return _walk(value, rules, number, left - 1, limit, key)


def _unfinished(part: object) -> bool:
    """Whether an object holds a null, or a number that isn't finite, among its fields."""
    return isinstance(part, dict) and any(
        value is None or (isinstance(value, float) and not math.isfinite(value))
        for value in part.values()
    )


def _never_read(text: str) -> bool:
    """Whether stored JSON holds text that reads as a non-finite number or a lone surrogate
    (JSON text spells a surrogate only as an escape: its UTF-8 bytes are not UTF-8); an
    escape is looked for only where one starts."""
    if "NaN" in text or "Infinity" in text:
        return True
    return "\\u" in text and ("\\ud" in text or "\\uD" in text)


_NUMERALS = bytes.maketrans(b"123456789E", b"000000000e")
"""Stored text's bytes with every digit a `0` and every `E` an `e`, so that a few substring
searches find what a pattern tried at every character found ten times slower."""
_LONGEST = b"0" * 309
_EXPONENTS = (b"e000", b"e+000")
_SIGNED = (b"e+000",)
"""The exponent `json.dumps` writes: a float's repr signs it (`1e+300`), so in its text an
unsigned one is inside a string (the ids' hex holds a few a case)."""
_SPACE = frozenset(b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
"""The ASCII characters `str.isspace` (and so a pattern's `\\s`) takes for space."""


def overflows(text: str, exponents: tuple[bytes, ...] = _EXPONENTS) -> bool:
    """Whether `text` holds a number of more digits than a double holds (309), or one with
    an exponent of three digits (`1e999` reads as infinity) where a number may start: at
    the start or after `:`, `,` or `[` and spaces (an id's `9e123` is no number); only
    signed exponents are looked for when `exponents` is `_SIGNED`."""
    numerals = text.encode("utf-8", "surrogatepass").translate(_NUMERALS)
    if _LONGEST in numerals:
        return True
    for exponent in exponents:
        at = numerals.find(exponent)
        while at >= 0:
            if _starts_number(numerals, at):
                return True
            at = numerals.find(exponent, at + 1)
    return False


def _starts_number(numerals: bytes, at: int) -> bool:
    """Whether the digits and points before the exponent at `at` are a number starting where
    one may (a byte past ASCII before its spaces may be a space, so it may)."""
    start = at
    while start > 0 and numerals[start - 1] in b"0.":
        start -= 1
    if start == at:
        return False
    if start > 0 and numerals[start - 1] == ord("-"):
        start -= 1
    while start > 0 and numerals[start - 1] in _SPACE:
        start -= 1
    return start == 0 or numerals[start - 1] in b":,[" or numerals[start - 1] >= 0x80


def may_need_repair(text: str, rules: Rules | Open) -> bool:
    """Whether `repaired` might change the JSON document `text` holds, as stored (UTF-8, so a
    lone surrogate in it is an escape): False only when it certainly would not, found
    without reading the document (most rows are read no further).

    Every number outside a named field need only be finite; a named field's value is left
    as it is when it is a whole number (or a decimal) below 1,000,000, at least 0, or a null
    where that is allowed. Any other bound, and a part whose numbers are bounded as given,
    means the document is read.
    """
    return _never_read(text) or _may_need_repair_read(text, rules, _EXPONENTS)


def may_need_repair_plain(text: str, rules: Rules | Open) -> bool:
    """`may_need_repair` of text `json.dumps` wrote with `allow_nan=False`, escaped to ASCII,
    holding no `\\u` escape: what `_never_read` looks for is not looked for again, nor an
    exponent it never writes (`_SIGNED`)."""
    return _may_need_repair_read(text, rules, _SIGNED)


def _may_need_repair_read(text: str, rules: Rules | Open, exponents: tuple[bytes, ...]) -> bool:
    """`may_need_repair` past `_never_read`, the exponents `overflows` looks for given."""
    if overflows(text, exponents):
        return True
    if text.count("[") + text.count("{") > _least_depth(rules):
        return True
    if isinstance(rules, Open):
        return rules.numbers is not COPIED
    if any(name in text for name in rules.given_parts):
        return True
    return rules.holds_unusual(text)


def may_need_repair_written(text: str, rules: Rules | Open) -> bool:
    """`may_need_repair` of the text `json.dumps` wrote of a value without escaping it to
    ASCII (as a test-set file's canonical case is): a lone surrogate in it is raw, not an
    escape, so it is looked for too."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
    return may_need_repair(text, rules)


def _least_depth(rules: Rules | Open) -> int:
    return rules.depth if isinstance(rules, Open) else rules.least_depth


ARGS = Open(ARGS_DEPTH, GIVEN)
"""A call's args as a person gave them."""
COPY = Open(COPY_DEPTH, COPIED)
"""A value copied from a run."""
SPEC = Open(MAX_DEPTH - 1, GIVEN)
"""A published suite's or test set's `spec`."""

DECISIONS = Rules(open={"args": ARGS})
"""A correction's or hand case's `decisions` (`shouldCall[].args` as given)."""
ITEMS = Rules({"rank": RANK})
"""A correction's or case's items: a rank a person gave."""
FROZEN_CASE = Rules(
    {"rank": RANK, "judgeClassWeight": WEIGHT},
    {"args": ARGS, "run": COPY},
)
"""A frozen (or pulled) test case: its expectations and weight as given, its run's copy."""
SUITE_CASE = Rules(
    {"rank": RANK, "yes": COUNT, "no": COUNT, "yesWeight": SUM, "totalWeight": SUM},
    {"args": ARGS, "input": COPY, "output": COPY, "context": COPY},
)
"""A built suite's case: its items' counts and weighted sums, its run's input and output."""
_RESULT_COUNTS = (
    "items", "judged_items", "fresh_items", "n", "baseline_n", "cases", "refused_writes",
    "errors", "repetitions", "repetitions_passed", "repetition", "runs", "checked", "passed",
    "case_index", "wins", "losses", "ties", "resamples", "count",
)  # fmt: skip
_RESULT_SUMS = (
    "yes_weight", "total_weight", "top_k_yes", "top_k_total", "fresh_yes", "fresh_total",
    "weight", "baseline_weight",
)  # fmt: skip
EVAL_RESULT = Rules(
    {
        **dict.fromkeys(_RESULT_COUNTS, COUNT),
        **dict.fromkeys(_RESULT_SUMS, SUM),
        **dict.fromkeys(("spread", "fresh_weight"), Bound(0, MAX_SUM)),
        **dict.fromkeys(("baseline", "candidate", "delta"), SHARE),
        **dict.fromkeys(
            ("rank", "rank_before", "k", "not_rescored"), Bound(0, MAX_NUMBER, whole=True)
        ),
        **dict.fromkeys(("low", "high", "level"), Bound(-MAX_SUM, MAX_SUM, 0.0, required=True)),
    },
    dict.fromkeys(("tools", "stopped", "sample", "versions", "expected", "actual", "input"), COPY),
    frozenset({"interval"}),
)
"""An eval run's result or one finished case (`domain.results` fields): counts, weighted
sums and metrics (a paired comparison's interval none when it couldn't be computed); what
its replays called and were expected to, as copied."""
EVAL_SETTINGS = Rules(
    {
        "k": Bound(1, 100, missing=10, whole=True, required=True),
        "repetitions": Bound(1, 10, missing=1, whole=True, required=True),
        "holdOutShare": Bound(0.1, 0.9, missing=0.5, required=True),
    }
)
"""An eval run's settings (`comparison`): the bounds a start request has."""


def repaired_suite_case(case: JSON) -> JSON:
    """A suite case made readable, each item's weights at most what its verdicts could weigh
    at `MAX_WEIGHT` each (the yes verdicts for `yesWeight`, all of them for `totalWeight`)."""
    fixed = repaired(case, SUITE_CASE)
    given = fixed.get("items") if isinstance(fixed, dict) else None
    if not isinstance(fixed, dict) or not isinstance(given, list):
        return fixed
    items = [_capped(item) for item in given]
    if all(new is old for new, old in zip(items, given, strict=True)):
        return fixed
    return {**fixed, "items": items}


def _capped(item: JSON) -> JSON:
    """One suite item's weights capped by its counts."""
    if not isinstance(item, dict):
        return item
    yes, no = item.get("yes"), item.get("no")
    if not isinstance(yes, int) or not isinstance(no, int):
        return item
    caps = {"yesWeight": yes * MAX_WEIGHT, "totalWeight": (yes + no) * MAX_WEIGHT}
    changes: JSONObject = {}
    for part, sums in (("", item), ("restricted", item.get("restricted"))):
        if not isinstance(sums, dict):
            continue
        capped: JSONObject = {
            name: min(weight, cap)
            for name, cap in caps.items()
            if isinstance(weight := sums.get(name), int | float) and weight > cap
        }
        if capped and part:
            changes[part] = {**sums, **capped}
        elif capped:
            changes.update(capped)
    return {**item, **changes} if changes else item
