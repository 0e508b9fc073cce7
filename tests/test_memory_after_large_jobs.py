"""What lets memory go back to idle after a large eval run: stored cases and request bodies
leave their values out of pydantic's process-wide string cache, and a run's summary keeps
equal scores once."""

from __future__ import annotations

from kindgi_dev.api.wire import WireModel, parse
from kindgi_dev.domain.metrics import CaseScore
from kindgi_dev.domain.results import CaseResult, FinishedCase
from kindgi_dev.domain.time import now_iso
from kindgi_dev.services.eval_runs.result import _Tally
from kindgi_dev.store import eval_runs as store
from kindgi_dev.store.db import Database


def _case(case_id: str, yes: float) -> FinishedCase:
    score = CaseScore(yes, 2.0, 2, 2, yes, 2.0)
    result = CaseResult(case_id, ["replay-of-" + case_id], score, [score], False, 0, False, False)
    return FinishedCase(result, [True, False], [True], "0.1.0")


def test_a_stored_case_s_values_are_decoded_anew_each_read() -> None:
    """Pydantic caches short strings it decodes for good; a run's ids would stay there,
    scattered over the memory its reading took. Field names may be cached, values not."""
    db = Database(":memory:")
    db.migrate()
    store.insert(db, store.EvalRunRow(
        run_id="er-1", tenant_id="t", project_id="p", suite_id="s",
        suite_version="1.0.0", kind="judged", status="running", dry_run=False,
        started_at=now_iso(), case_count=1,
    ))  # fmt: skip
    store.add_case(db, "er-1", 0, "case-7f3a", _case("case-7f3a", 1.0), now_iso())

    [[(_, first)]] = list(store.finished_after(db, "er-1"))
    [[(_, again)]] = list(store.finished_after(db, "er-1"))
    [[paged]] = list(store.finished_pages(db, "er-1"))

    assert first == again == paged
    assert first.result.case_id == "case-7f3a"
    assert first.result.case_id is not again.result.case_id
    assert again.result.case_id is not paged.result.case_id
    assert first.result.run_ids[0] is not again.result.run_ids[0]
    db.close()


class _Body(WireModel):
    note: str


def test_a_request_body_s_values_are_decoded_anew_each_request() -> None:
    first = parse(_Body, {"note": "a fresh id 51c0"}, strict=True)
    again = parse(_Body, {"note": "a fresh id 51c0"}, strict=True)
    assert first.note == again.note == "a fresh id 51c0"
    assert first.note is not again.note


def test_a_summary_keeps_equal_scores_once_and_every_case_in_order() -> None:
    """Thousands of cases scoring alike hold one score object, not thousands."""
    tally = _Tally()
    for index in range(1000):
        tally.add(_case(f"c-{index}", 1.0 if index % 10 else 0.5))

    assert tally.cases == 1000
    assert len(tally.baseline) == len(tally.candidate) == len(tally.checks) == 1000
    assert len({id(score) for score in tally.baseline}) == 2
    assert len({id(scores) for scores in tally.candidate}) == 2
    assert len({id(checks) for checks in tally.checks}) == 1
    assert [s.yes_weight for s in tally.baseline[:11]] == [0.5] + [1.0] * 9 + [0.5]
    assert tally.checks[0] == (True, False) and tally.baseline_checks[0] == (True,)
    assert tally.candidate[0] == (CaseScore(0.5, 2.0, 2, 2, 0.5, 2.0),)
