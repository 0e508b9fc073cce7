"""Grouping failed runs for `runs.failures`: largest first, the limit per list, `groupBy`."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.errors import ValidationFailed
from kindgi_dev.domain.failures import FailedRun, group_failures, group_keys


def failed(run_id: str, code: str | None, day: int, version: str = "1.0.0") -> FailedRun:
    return FailedRun(run_id, "flow", "acme.triage", version, code, f"2026-01-0{day}T00:00:00.000Z")


def test_the_largest_group_comes_first_and_the_limit_cuts_each_list() -> None:
    runs = [failed("a", "run-failed", 1), failed("b", "timeout", 2), failed("c", "timeout", 3)]
    found = group_failures(runs, start="s", end="e", limit=1)
    assert [(g.code, g.count, g.example_run_id) for g in found.groups] == [("timeout", 2, "c")]
    assert found.total == 3


def test_equal_groups_put_the_latest_failure_first() -> None:
    runs = [failed("a", "run-failed", 1), failed("b", "timeout", 2)]
    found = group_failures(runs, start="s", end="e")
    assert [g.code for g in found.groups] == ["timeout", "run-failed"]


def test_group_by_names_code_or_version_only() -> None:
    assert group_keys(None) == ("code", "version")
    assert group_keys("version") == ("version",)
    with pytest.raises(ValidationFailed):
        group_keys("subject")
    runs = [failed("a", "x", 1, "1.0.0"), failed("b", "y", 2, "1.0.0")]
    [one] = group_failures(runs, start="s", end="e", keys=("version",)).groups
    assert (one.code, one.version, one.count) == (None, "1.0.0", 2)
