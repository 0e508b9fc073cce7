"""A correction made one by one writes what a batch writes (#29 point 2): its case state and
its set's count set with its row, so nothing is written twice; its run's copy looked for
once a run, never remembered from a write that rolled back; its ids ordered by time."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from tables import read_only

from kindgi_dev.domain.expectations import GivenItem
from kindgi_dev.services import corrections
from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))


class Undone(Exception):
    """Raised inside a transaction to roll it back."""


def items() -> tuple[GivenItem, ...]:
    """The password run's articles, the first right and the others wrong."""
    return tuple(
        GivenItem(key, f"/output/articles/{rank}", "right" if rank == 0 else "wrong", rank)
        for rank, key in enumerate(QUESTIONS[PASSWORD])
    )


def correct(ctx: Context, run_id: str, person: str) -> corrections.Correction:
    return corrections.create(ctx, run_id, items=items(), participant_id=person)


def changes_of(ctx: Context, run_id: str, person: str) -> int:
    """Rows SQLite changed (its triggers' too) to store one correction."""
    with ctx.db.transaction() as conn:
        before = conn.execute("SELECT total_changes()").fetchone()[0]
        correct(ctx, run_id, person)
        return int(conn.execute("SELECT total_changes()").fetchone()[0] - before)


def active_cases(ctx: Context) -> int:
    conn = read_only(Path(ctx.db.path))
    try:
        row = conn.execute("SELECT active FROM test_set_counts WHERE agent_id = ?", (AGENT,))
        return int(row.fetchone()[0])
    finally:
        conn.close()


def test_a_new_correction_changes_its_row_its_verdicts_and_its_count_once(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        correct(ctx, run_id, "first")  # the run's copy is kept now
        assert changes_of(ctx, run_id, "second") == 1 + len(QUESTIONS[PASSWORD]) + 1
        assert active_cases(ctx) == 2
        states = ctx.db.all("SELECT case_state FROM corrections ORDER BY seq")
        assert [row[0] for row in states] == [1, 1]


def test_a_correction_of_a_replay_is_no_case_and_counts_nothing(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        original = recorded_run(ctx, PASSWORD)
        correct(ctx, original, "first")
        replay = recorded_run(ctx, PASSWORD, replay_of=original)
        correct(ctx, replay, "second")
        assert active_cases(ctx) == 1
        states = ctx.db.all("SELECT case_state FROM corrections ORDER BY seq")
        assert [row[0] for row in states] == [1, 0]


def test_a_runs_copy_is_looked_for_once_and_not_after_it_is_kept(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        traced: list[str] = []
        ctx.db.trace(traced.append)
        correct(ctx, run_id, "first")
        first = [s for s in traced if "judged_run_copies" in s]
        traced.clear()
        correct(ctx, run_id, "second")
        ctx.db.trace(None)
        assert [s.split()[0] for s in first] == ["SELECT", "INSERT"]
        assert [s for s in traced if "judged_run_copies" in s] == []


def test_a_copy_rolled_back_is_kept_by_the_next_correction(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        with pytest.raises(Undone), ctx.db.transaction():
            correct(ctx, run_id, "first")
            raise Undone
        assert ctx.db.all("SELECT run_id FROM judged_run_copies") == []
        correct(ctx, run_id, "second")
        assert [tuple(r) for r in ctx.db.all("SELECT run_id FROM judged_run_copies")] == [(run_id,)]


def test_a_copy_seen_in_a_transaction_rolled_back_is_not_taken_as_kept(tmp_path: Path) -> None:
    """Two corrections in one transaction (as a group commit shares one): the second finds
    the copy the first wrote, not committed yet; after the rollback the next correction
    must still keep it."""
    with served(tmp_path) as (_, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        with pytest.raises(Undone), ctx.db.transaction():
            correct(ctx, run_id, "first")
            correct(ctx, run_id, "second")
            raise Undone
        correct(ctx, run_id, "third")
        assert [tuple(r) for r in ctx.db.all("SELECT run_id FROM judged_run_copies")] == [(run_id,)]


def test_a_correction_and_its_verdicts_get_ids_ordered_by_time(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        made = [correct(ctx, run_id, f"p-{n}") for n in range(3)]
        ids = [c.id for c in made] + [item.judgment_id for c in made for item in c.items]
        assert {uuid.UUID(i).version for i in ids} == {7}
        stamps = [uuid.UUID(c.id).int >> 80 for c in made]
        assert stamps == sorted(stamps)
