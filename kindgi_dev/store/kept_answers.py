"""Replays' answers and judging verdicts kept for an eval run that asks to reuse them
(`reuse: true`): the first answer of a content, case and repetition is kept, never replaced."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from pydantic import TypeAdapter

from ..domain.checks import AnswerCheck
from ..domain.comparison import Replayed
from .db import Database
from .jsoncol import dump, load, load_object
from .query import chunks, marks

AnswerKey = tuple[str, str, str, int]
"""(tenant, content hash, case hash, repetition)."""


@cache
def _replayed() -> TypeAdapter[Replayed]:
    """Built when first used, as `eval_runs._adapter` (start needs none)."""
    return TypeAdapter(Replayed)


def answer(db: Database, key: AnswerKey) -> Replayed | None:
    """The answer kept for a content, case and repetition, or None; without judging verdicts
    (an answer kept before they were left out has them: they are dropped), as it is judged
    again by the judge of the run reusing it."""
    row = db.one(
        "SELECT answer FROM kept_answers WHERE tenant_id = ? AND content_hash = ? "
        "AND case_hash = ? AND repetition = ?",
        key,
    )
    if row is None:
        return None
    kept = load_object(row["answer"])
    kept.pop("judged", None)
    return _replayed().validate_python(kept)


def keep_answers(db: Database, kept: Sequence[tuple[AnswerKey, Replayed]]) -> None:
    """Keep answers not kept yet, without their judging verdicts, one statement for them all
    (inside the caller's page)."""
    rows = [(*key, _answer_json(replayed)) for key, replayed in kept]
    with db.transaction() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO kept_answers "
            "(tenant_id, content_hash, case_hash, repetition, answer) VALUES (?, ?, ?, ?, ?)",
            rows,
        )


def _answer_json(replayed: Replayed) -> str:
    return str(dump(_replayed().dump_python(replayed, mode="json", exclude={"judged"})))


def verdict(db: Database, judge: str, asked_hash: str) -> AnswerCheck | None:
    """The judging model's verdict kept for the same judge and question, or None."""
    row = db.one(
        "SELECT verdict FROM kept_verdicts WHERE judge = ? AND asked_hash = ?", (judge, asked_hash)
    )
    if row is None:
        return None
    stored = load(row["verdict"])
    if not isinstance(stored, list) or len(stored) != 2:
        raise ValueError("a verdict is stored as [passed, reason]")
    passed, reason = stored
    return AnswerCheck(bool(passed), str(reason))


@dataclass(frozen=True)
class KeptVerdict:
    """A judging model's verdict to keep, by judge and question's hash, with the case and
    past run the question came from: an erasure of either forgets it (`forget_verdicts_of`)."""

    judge: str
    asked_hash: str
    verdict: AnswerCheck
    case_id: str
    run_id: str


def keep_verdicts(db: Database, kept: Sequence[KeptVerdict]) -> None:
    """Keep judging verdicts; the first of each judge and question stays."""
    rows = [(k.judge, k.asked_hash, dump(list(k.verdict)), k.case_id, k.run_id) for k in kept]
    with db.transaction() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO kept_verdicts (judge, asked_hash, verdict, case_id, run_id) "
            "VALUES (?, ?, ?, ?, ?)",
            rows,
        )


def forget_verdicts_of(db: Database, case_ids: Sequence[str], run_ids: Sequence[str]) -> int:
    """Drop the verdicts kept on these cases' or runs' questions (an erasure cleared their
    words, which a judge's reason may quote); how many. Every kept verdict is read (no index
    holds their cases and runs), which an erasure, the one asking, can afford."""
    return db.run(
        "DELETE FROM kept_verdicts WHERE case_id IN (SELECT value FROM json_each(?)) "
        "OR run_id IN (SELECT value FROM json_each(?))",
        (dump(list(case_ids)), dump(list(run_ids))),
    )


def forget_answers_of(db: Database, run_ids: Sequence[str]) -> int:
    """Drop the answers kept from these replay runs (their content was erased: no later run
    may reuse what they said); how many."""
    forgotten = 0
    for chunk in chunks(run_ids):
        forgotten += db.run(
            f"DELETE FROM kept_answers WHERE json_extract(answer, '$.run_id') IN ({marks(chunk)})",
            chunk,
        )
    return forgotten
