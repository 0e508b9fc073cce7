"""What a case's repetitions came to: passed, failed, or errored (no answer to score).

A repetition *passes* a case when it passes every checked part and, where it shows items
people corrected, all of them were marked right. Over n repetitions a case reports pass^n
(`passed_all`), `passed_any`, and is flaky when some passed and some didn't. A repetition
whose model or tool call errored (a timeout, a provider's 5xx, a rate limit after its
retries) is *errored*: it has no answer, so it is never scored as a wrong one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .json import JSON
from .metrics import CaseScore

ERRORED_RUN_CODES = frozenset({"model-invocation-failed"})
"""Run failure codes that mean the model never answered (its provider failed, or refused
after the retries)."""
ERRORED_RUN_REASONS = frozenset({"max-wall-time"})
"""`budget-exceeded` reasons that are a timeout, not the agent going in circles."""
ERRORED_TOOL_CODES = frozenset(
    {"deadline-exceeded", "pack-service-unreachable", "pack-service-error", "rate-limited"}
)
"""A live tool call's error codes that are its service failing (a timeout, a 5xx, no
answer), not the tool's answer. `pack-service-unavailable` is not one: kindgi dev answers
it for every call of a pack that runs no pack service, a state of the pack, which a
replay reports to the model as the run did."""


@dataclass(frozen=True)
class Repeated:
    """A case over its repetitions: every one passed (pass^n), some passed, flaky."""

    passed_all: bool
    passed_any: bool
    repetitions: int

    @property
    def flaky(self) -> bool:
        """Some repetitions passed and some didn't."""
        return self.passed_any and not self.passed_all


def repetition_passed(checks: Sequence[bool], score: CaseScore | None) -> bool | None:
    """Whether one repetition (or the recorded run) passed the case; None when the case has
    nothing to pass: no checked part, and no corrected item in the output."""
    shows_items = score is not None and score.judged_items > 0 and score.total_weight > 0
    if not checks and not shows_items:
        return None
    all_right = not shows_items or (
        score is not None and score.yes_weight >= score.total_weight - 1e-9
    )
    return all(checks) and all_right


def repeated(passes: Sequence[bool | None]) -> Repeated | None:
    """pass^n and pass-any over the repetitions that had something to pass (None: none)."""
    decided = [p for p in passes if p is not None]
    if not decided:
        return None
    return Repeated(all(decided), any(decided), len(decided))


def errored_run(failure: Mapping[str, JSON] | None) -> bool:
    """Whether a replay's failure means it has no answer (its model errored or timed out)."""
    if not failure:
        return False
    code = failure.get("code")
    return code in ERRORED_RUN_CODES or (
        code == "budget-exceeded" and failure.get("reason") in ERRORED_RUN_REASONS
    )


def errored_tool(call: Mapping[str, JSON]) -> bool:
    """Whether a live tool call failed in its service rather than answering an error."""
    error = call.get("error")
    if call.get("source") != "live" or not isinstance(error, str):
        return False
    return error.partition(":")[0].strip() in ERRORED_TOOL_CODES
