"""Every test set's counts and every correction's case state stay what a fresh count says,
whatever sequence of writes made them (#29): batches of corrections (which write the case
state and the counts themselves) between corrections made one by one, changed items,
statuses, removed expectations, erasures, retirements and hand cases (kept by m0010's
triggers)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factories import AGENT, QUESTIONS, recorded_run, served, tutorial_runs
from tables import read_only

from kindgi_dev.domain.errors import KindgiError
from kindgi_dev.domain.expectations import Answer, Decisions, GivenItem
from kindgi_dev.services import corrections, erasures, test_sets
from kindgi_dev.services.context import Context
from kindgi_dev.services.correction_batches import NewCorrection, create_many
from kindgi_dev.store.migrations.m0020_compact_verdicts import _STATE

PEOPLE = [f"p-{n}" for n in range(6)]
STATUSES = ("open", "fixed", "with-owner", "wont-fix", "removed")


def fresh_counts(conn: sqlite3.Connection) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """(the kept counts, the counts made afresh from every case), by agent, project and
    tenant; a set with a row but no cases counts zero."""
    kept = {tuple(r[:3]): (r[3], r[4]) for r in conn.execute("SELECT * FROM test_set_counts")}
    made: dict[Any, Any] = dict.fromkeys(kept, (0, 0))
    rows = conn.execute(
        f"SELECT subject_id, project_id, tenant_id, sum(s = 1), sum(s = 2) FROM "
        f"(SELECT *, {_STATE} AS s FROM corrections) WHERE s > 0 "
        "GROUP BY subject_id, project_id, tenant_id"
    )
    for agent, project, tenant, active, retired in rows:
        made[(agent, project, tenant)] = (active, retired)
    hand = conn.execute(
        "SELECT agent_id, project_id, h.tenant_id, sum(t.case_id IS NULL), "
        "sum(t.case_id IS NOT NULL) FROM hand_cases h LEFT JOIN case_retirements t "
        "ON t.case_id = h.id GROUP BY agent_id, project_id, h.tenant_id"
    )
    for agent, project, tenant, active, retired in hand:
        before = made.get((agent, project, tenant), (0, 0))
        made[(agent, project, tenant)] = (before[0] + active, before[1] + retired)
    return kept, made


def check(ctx: Context, step: str) -> tuple[int, int]:
    """Every kept count and case state is what a fresh count says; (active, retired) of the
    agent's set."""
    conn = read_only(Path(ctx.db.path))
    try:
        kept, made = fresh_counts(conn)
        assert kept == made, step
        stale = conn.execute(
            f"SELECT count(*) FROM corrections WHERE case_state IS NOT ({_STATE})"
        ).fetchone()
        assert stale == (0,), step
        project = conn.execute("SELECT id FROM projects WHERE is_default = 1").fetchone()[0]
        return kept.get((AGENT, project, ctx.tenant_id), (0, 0))  # type: ignore[no-any-return]
    finally:
        conn.close()


def items(rng: random.Random, question: str) -> tuple[GivenItem, ...]:
    right = rng.randrange(3)
    keys = QUESTIONS.get(question, QUESTIONS[next(iter(QUESTIONS))])
    return tuple(
        GivenItem(key, f"/output/articles/{rank}", "right" if rank == right else "wrong", rank)
        for rank, key in enumerate(keys)
    )


def one(rng: random.Random, runs: dict[str, str]) -> NewCorrection:
    """A correction of a random run by one of a few people: items, or decisions or an answer
    alone."""
    question = rng.choice(list(runs))
    person = rng.choice(PEOPLE)
    if rng.random() < 0.2:
        return NewCorrection(runs[question], (), answer=Answer("wrong", "Say so.", None),
                             participant_id=person)  # fmt: skip
    if rng.random() < 0.1:
        return NewCorrection(runs[question], (), decisions=Decisions("right", None, None),
                             participant_id=person)  # fmt: skip
    return NewCorrection(runs[question], items(rng, question), participant_id=person)


def writes(ctx: Context, runs: dict[str, str]) -> list[Callable[[random.Random], object]]:
    """Each kind of write, made at random."""

    def live() -> list[str]:
        return [r[0] for r in ctx.db.all("SELECT id FROM corrections WHERE replaced_by IS NULL")]

    def single(rng: random.Random) -> object:
        given = one(rng, runs)
        return corrections.create(ctx, given.run_id, items=given.items,
                                  decisions=given.decisions, answer=given.answer,
                                  participant_id=given.participant_id)  # fmt: skip

    def changed_item(rng: random.Random) -> object:
        found = ctx.db.one(
            "SELECT c.id, c.run_id FROM corrections c JOIN verdicts v ON v.correction_seq = c.seq "
            "WHERE c.replaced_by IS NULL AND c.erased_at IS NULL ORDER BY random() LIMIT 1"
        )
        question = next((q for q, run in runs.items() if found and run == found[1]), None)
        if found is None or question is None:
            return None
        return corrections.add_item(ctx, found[0], rng.choice(items(rng, question)))

    def no_expectation(rng: random.Random) -> object:
        return corrections.update(ctx, rng.choice(live()), decisions=None, answer=None)

    def hand(rng: random.Random) -> object:
        question = rng.choice([q for q in runs if q in QUESTIONS])
        return test_sets.add_case(ctx, AGENT, runs[question], items=items(rng, question))

    def retire(rng: random.Random) -> object:
        cases = test_sets.list_cases(ctx, AGENT, None, limit=100)
        if not cases.items:
            return None
        return test_sets.retire_case(ctx, AGENT, rng.choice(cases.items).id, "no longer applies")

    return [
        lambda rng: create_many(ctx, [one(rng, runs) for _ in range(rng.randint(1, 8))]),
        lambda rng: create_many(ctx, [one(rng, runs) for _ in range(rng.randint(1, 8))]),
        single,
        changed_item,
        lambda rng: corrections.update(ctx, rng.choice(live()), status=rng.choice(STATUSES)),
        no_expectation,
        lambda rng: erasures.erase_participant(ctx, rng.choice(PEOPLE)),
        hand,
        retire,
    ]


def test_every_count_is_a_fresh_count_after_any_sequence_of_writes(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        runs = tutorial_runs(ctx)
        password = next(iter(QUESTIONS))
        runs["replay"] = recorded_run(ctx, password, replay_of=runs[password])
        kinds = writes(ctx, runs)
        rng = random.Random(47)
        seen = set()
        for step in range(160):
            write = rng.randrange(len(kinds))
            try:
                kinds[write](rng)
            except (KindgiError, IndexError):
                continue  # refused (a retired case, an erased correction) or nothing to change
            seen.add(write)
            counts = check(ctx, f"step {step}: write {write}")
        assert seen == set(range(len(kinds))), "every kind of write was made"
        assert counts[0] > 0 and counts[1] > 0, "both active and retired cases were counted"
