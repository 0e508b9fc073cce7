"""pass^n and flaky cases over repetitions, and a replay that errored told from one that failed."""

from __future__ import annotations

from kindgi_dev.domain.metrics import CaseScore
from kindgi_dev.domain.outcomes import (
    Repeated,
    errored_run,
    errored_tool,
    repeated,
    repetition_passed,
)

ALL_RIGHT = CaseScore(2, 2, 3, 2, 2, 2)
ONE_WRONG = CaseScore(1, 2, 3, 2, 1, 2)
NOTHING_CORRECTED = CaseScore(0, 0, 3, 0, 0, 0)


def test_a_repetition_passes_its_checks_and_shows_no_item_marked_wrong() -> None:
    assert repetition_passed([True, True], ALL_RIGHT) is True
    assert repetition_passed([True, False], ALL_RIGHT) is False
    assert repetition_passed([], ONE_WRONG) is False
    assert repetition_passed([], ALL_RIGHT) is True
    # Checks decide alone when no corrected item is shown.
    assert repetition_passed([True], NOTHING_CORRECTED) is True
    assert repetition_passed([True], None) is True
    # Nothing to pass: no check, no corrected item.
    assert repetition_passed([], NOTHING_CORRECTED) is None
    assert repetition_passed([], None) is None


def test_pass_to_the_n_and_flaky_marking() -> None:
    assert repeated([True, True, True]) == Repeated(True, True, 3)
    assert repeated([True, True, True]).flaky is False  # type: ignore[union-attr]
    some = repeated([True, False, True])
    assert some == Repeated(False, True, 3) and some.flaky
    never = repeated([False, False])
    assert never == Repeated(False, False, 2) and not never.flaky
    # A repetition with nothing to pass doesn't count either way.
    assert repeated([None, True]) == Repeated(True, True, 1)
    assert repeated([None, None]) is None
    assert repeated([]) is None


def test_a_models_error_or_timeout_is_errored_a_bad_answer_is_failed() -> None:
    assert errored_run({"code": "model-invocation-failed", "message": "HTTP 503"})
    assert errored_run({"code": "budget-exceeded", "message": "…", "reason": "max-wall-time"})
    assert not errored_run({"code": "budget-exceeded", "message": "…", "reason": "max-steps"})
    assert not errored_run({"code": "output-invalid", "message": "not the schema"})
    assert not errored_run(None)


def test_a_tool_service_failing_is_errored_a_tools_own_error_is_not() -> None:
    assert errored_tool({"source": "live", "error": "deadline-exceeded: no answer in 30 s"})
    assert errored_tool({"source": "live", "error": "pack-service-error: HTTP 502"})
    assert not errored_tool({"source": "live", "error": "pack-service-unavailable: no service"})
    assert not errored_tool({"source": "live", "error": "validation-failed: query is empty"})
    assert not errored_tool({"source": "recorded", "error": "deadline-exceeded: as recorded"})
    assert not errored_tool({"source": "live", "result": {"ok": True}})
