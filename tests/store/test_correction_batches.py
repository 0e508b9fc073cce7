"""Issue 29 point 3: a batch of corrections (seeding, imports) stores what the same
corrections made one by one store, and refuses as they would, writing nothing."""

from __future__ import annotations

import gc
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from factories import (
    QUESTIONS,
    UNCORRECTABLE,
    recorded_run,
    served,
    tutorial_runs,
    uncorrectable_run,
)
from tables import Rows, every_row

from kindgi_dev.domain import corrections as rules
from kindgi_dev.domain.errors import KindgiError, ValidationFailed
from kindgi_dev.domain.expectations import Answer, Decisions, GivenItem
from kindgi_dev.domain.time import now_iso
from kindgi_dev.services import corrections
from kindgi_dev.services.context import Context
from kindgi_dev.services.correction_batches import NewCorrection, create_many
from kindgi_dev.store import staging

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def items_of(question: str, right: int = 0) -> tuple[GivenItem, ...]:
    """The run's articles, the one at `right` right and the others wrong."""
    return tuple(
        GivenItem(key, f"/output/articles/{rank}", "right" if rank == right else "wrong", rank)
        for rank, key in enumerate(QUESTIONS[question])
    )


def batch_of(runs: dict[str, str]) -> list[NewCorrection]:
    """Corrections of the tutorial's runs by many people: some with decisions or an answer,
    one replacing a correction made before the batch, one replacing one earlier in it."""
    questions = list(runs)
    batch = [
        NewCorrection(runs[q], items_of(q), participant_id=f"p-{n}")
        for n in range(12)
        for q in (questions[n % len(questions)],)
    ]
    first = questions[0]
    batch.append(NewCorrection(runs[first], items_of(first, 1), participant_id="before"))
    batch.append(NewCorrection(runs[first], (), decisions=Decisions("right", None, None),
                               answer=Answer("wrong", "Reset it from the sign-in page.", None),
                               participant_id="p-20"))  # fmt: skip
    batch.append(NewCorrection(runs[first], items_of(first, 2), participant_id="p-0"))
    return batch


@pytest.fixture
def two_stores(tmp_path: Path) -> Iterator[tuple[tuple[Context, dict[str, str]], ...]]:
    """Two instances with the same runs recorded, each with one correction made before."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with served(tmp_path / "a") as (_, a), served(tmp_path / "b") as (_, b):
        stores = tuple((ctx, tutorial_runs(ctx)) for ctx in (a, b))
        for ctx, runs in stores:
            first = next(iter(runs))
            corrections.create(ctx, runs[first], items=items_of(first), participant_id="before")
        yield stores


def written(ctx: Context, before: Rows) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """Each table's rows that were not there before, with every id and time replaced by
    its place of first appearance (so two stores' rows compare)."""
    seen: dict[object, str] = {}

    def same(value: object) -> object:
        if isinstance(value, bytes) and len(value) == 16:  # a packed id
            return seen.setdefault(value, f"<id {len(seen)}>")
        if isinstance(value, str):
            value = UUID.sub(lambda m: seen.setdefault(m[0], f"<id {len(seen)}>"), value)
            return TIME.sub("<time>", value)
        return value

    after = every_row(Path(ctx.db.path))
    return [
        (table, [tuple(same(v) for v in row) for row in rows if row not in before[table]])
        for table, rows in after.items()
    ]


@pytest.mark.parametrize("staged_at_once", [staging.STAGED_AT_ONCE, 2])
def test_a_batch_stores_what_the_same_corrections_one_by_one_store(
    two_stores: tuple[tuple[Context, dict[str, str]], ...],
    staged_at_once: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Also when its rows are moved from their temp table a few at a time (`staging`)."""
    monkeypatch.setattr(staging, "STAGED_AT_ONCE", staged_at_once)
    (one_by_one, runs_a), (batched, runs_b) = two_stores
    before_a, before_b = every_row(Path(one_by_one.db.path)), every_row(Path(batched.db.path))
    for given in batch_of(runs_a):
        corrections.create(one_by_one, given.run_id, items=given.items,
                           decisions=given.decisions, answer=given.answer,
                           participant_id=given.participant_id)  # fmt: skip
    ids = create_many(batched, batch_of(runs_b))
    rows_a, rows_b = written(one_by_one, before_a), written(batched, before_b)
    assert rows_a == rows_b
    changed = {table: len(rows) for table, rows in rows_b if rows}
    assert changed["corrections"] == len(ids) + 1  # and the one made before, replaced
    assert changed["verdicts"] >= 3 * 12 and changed["judged_run_copies"] == 2


def test_a_batch_refused_names_its_correction_and_writes_nothing(
    two_stores: tuple[tuple[Context, dict[str, str]], ...],
) -> None:
    _, (ctx, runs) = two_stores
    batch = batch_of(runs)
    question = next(iter(runs))
    wrong_key = replace(items_of(question)[0], key="kb-999")
    batch[5] = NewCorrection(runs[question], (wrong_key,), participant_id="p-5")
    before = every_row(Path(ctx.db.path))
    with pytest.raises(ValidationFailed) as refused:
        create_many(ctx, batch)
    assert refused.value.details["field"] == "corrections/5/items/0/pointer"
    assert every_row(Path(ctx.db.path)) == before


def test_a_batch_pauses_the_collector_and_leaves_it_as_it_found_it(
    two_stores: tuple[tuple[Context, dict[str, str]], ...],
) -> None:
    """A batch's records all live until they are written, so it collects no cycles
    meanwhile; the collector is on after it whether it was stored or refused."""
    _, (ctx, runs) = two_stores
    seen: list[bool] = []
    question = next(iter(runs))

    def check_items(given: Any, where: str) -> Any:
        seen.append(gc.isenabled())
        return checked(given, where)

    checked = rules.check_items
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "check_items", check_items)
        create_many(ctx, [NewCorrection(runs[question], items_of(question), participant_id="x")])
        assert gc.isenabled()
        wrong = replace(items_of(question)[0], key="kb-999")
        with pytest.raises(ValidationFailed):
            create_many(ctx, [NewCorrection(runs[question], (wrong,), participant_id="y")])
    assert seen == [False, False]
    assert gc.isenabled()


def test_a_batch_stamps_each_correction_with_the_clock_in_wire_form_in_order(
    two_stores: tuple[tuple[Context, dict[str, str]], ...],
) -> None:
    """A batch writes the time once a millisecond: each correction's and verdict's is still
    the clock's when it was made, never going back."""
    _, (ctx, runs) = two_stores
    question = next(iter(runs))
    started = now_iso()
    batch = [
        NewCorrection(runs[question], items_of(question), participant_id=f"t-{n}")
        for n in range(300)
    ]
    ids = create_many(ctx, batch)
    ended = now_iso()
    db = sqlite3.connect(f"file:{ctx.db.path}?mode=ro", uri=True)
    try:
        marks = [db.execute("SELECT created_at, updated_at FROM corrections WHERE id = ?",
                            (i,)).fetchone() for i in ids]  # fmt: skip
        verdicts = db.execute(
            "SELECT v.created_at, c.created_at FROM verdicts v JOIN corrections c "
            "ON c.seq = v.correction_seq WHERE c.participant_id LIKE 't-%'"
        ).fetchall()
    finally:
        db.close()
    made = [created for created, _ in marks]
    assert all(created == updated for created, updated in marks)
    assert made == sorted(made) and started <= made[0] and made[-1] <= ended
    assert all(TIME.fullmatch(m) for m in made)
    assert len(verdicts) == 3 * 300 and all(v == c for v, c in verdicts)


@pytest.mark.parametrize(("kind", "status", "code"), UNCORRECTABLE)
def test_a_batch_refuses_a_run_no_one_may_correct_at_its_turn_and_writes_nothing(
    two_stores: tuple[tuple[Context, dict[str, str]], ...], kind: str, status: int, code: str
) -> None:
    """The batch reads its runs at once, yet refuses as the one-by-one path does: the
    first refused correction (`items` come first: a bad item before it still wins)."""
    _, (ctx, runs) = two_stores
    batch = batch_of(runs)
    batch[4] = replace(batch[4], run_id=uncorrectable_run(ctx, runs, kind))
    before = every_row(Path(ctx.db.path))
    with pytest.raises(KindgiError) as refused:
        create_many(ctx, batch)
    assert (refused.value.status, refused.value.wire_code) == (status, code)
    assert every_row(Path(ctx.db.path)) == before


def test_a_batch_over_many_runs_reads_them_and_their_copies_a_statement_for_all(
    tmp_path: Path,
) -> None:
    """An import's shape, each correction on a run of its own: the runs are read, and their
    judged copies looked for, in one statement each, not one a run; every run has its copy
    after."""
    with served(tmp_path) as (_, ctx):
        questions = list(QUESTIONS)
        own = [recorded_run(ctx, questions[n % 3]) for n in range(40)]
        batch = [
            NewCorrection(run_id, items_of(questions[n % 3]), participant_id=f"s-{n}")
            for n, run_id in enumerate(own)
        ]
        traced: list[str] = []
        ctx.db.trace(traced.append)
        create_many(ctx, batch)
        ctx.db.trace(None)
        reads_of_runs = [s for s in traced if re.search(r"\bFROM runs\b", s)]
        reads_of_copies = [s for s in traced if re.search(r"SELECT .* FROM judged_run_copies", s)]
        assert (len(reads_of_runs), len(reads_of_copies)) == (1, 1)
        kept = every_row(Path(ctx.db.path))["judged_run_copies"]
        assert len(kept) == 40
