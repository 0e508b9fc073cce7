"""What a corrector (or a hand case) says of a run, as typed records: each item's verdict,
what the run should have done (`Decisions`) and what its answer should have said (`Answer`).

The API builds them from its validated bodies and the console from its form; the rules in
`corrections` check them, and one module of the store keeps them as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from kindgi_dev.domain.json import JSONObject


@dataclass(frozen=True)
class GivenItem:
    """One item's verdict as given: its stable key, where it is, the word, its rank, why."""

    key: str
    pointer: str | None
    verdict: str
    rank: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class ExpectedCall:
    """A tool call the run should have made, with the arguments it should have had."""

    tool_id: str
    args: JSONObject | None = None


@dataclass(frozen=True)
class Decisions:
    """What the run should have done: `right`, or `wrong` with the calls it should (not)
    have made; None is a part not given."""

    verdict: str
    should_call: tuple[ExpectedCall, ...] | None = None
    must_not_call: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Answer:
    """What the run's answer should have said: `right`, or `wrong` with what it should have
    said and why; None is a part not given."""

    verdict: str
    should_say: str | None = None
    why: str | None = None
