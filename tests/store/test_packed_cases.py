"""A finished case's row keeps its outcomes as letters and no case id its row has, and
reads back as the case was (#29)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kindgi_dev.store.eval_run_json import packed_case, unpacked_case


def _case(**result: Any) -> dict[str, Any]:
    """A dumped finished case (defaults left out), its comparison's fields changed."""
    return {"result": {"case_id": "case-1", "run_ids": ["r-1"], "baseline": {"yes_weight": 1},
                       "candidate": [], **result}, "made_on": "0.1.0"}  # fmt: skip


@pytest.mark.parametrize(
    ("outcomes", "letters"),
    [
        ({}, None),
        ({"passed_all": True, "passed_any": True, "flaky": False, "passed_before": False},
         "ttff"),
        ({"passed_any": False, "passed_before": True}, "-f-t"),
    ],
)  # fmt: skip
def test_outcomes_are_kept_as_letters_and_read_back(
    outcomes: dict[str, Any], letters: str | None
) -> None:
    case = _case(**outcomes)
    kept = json.loads(json.dumps(packed_case(case, "case-1")))
    assert "case_id" not in kept["result"]
    assert kept["result"].get("outcomes") == letters
    assert not outcomes.keys() & kept["result"].keys()
    whole = unpacked_case(kept, "case-1")
    assert isinstance(whole, dict)
    assert {k: whole["result"][k] for k in ("case_id", *outcomes)} == {
        "case_id": "case-1", **outcomes}  # fmt: skip


def test_a_case_id_unlike_its_row_s_and_a_row_from_before_read_as_kept() -> None:
    """A comparison naming another case keeps its id; a row stored with its id and
    outcomes by name (before m0049) reads as it was."""
    kept = packed_case(_case(), "case-2")
    assert kept["result"]["case_id"] == "case-1"
    whole = unpacked_case(kept, "case-2")
    assert isinstance(whole, dict) and whole["result"]["case_id"] == "case-1"
    before = _case(passed_all=False, flaky=True)
    read = unpacked_case(before, "case-9")
    assert isinstance(read, dict)
    assert (read["result"]["case_id"], read["result"]["passed_all"], read["result"]["flaky"]) == (
        "case-1", False, True)  # fmt: skip
