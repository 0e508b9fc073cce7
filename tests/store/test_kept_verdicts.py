"""Kept judging verdicts name the case and past run their question came from, so an
erasure forgets the ones on its corrections or its runs and no other."""

from __future__ import annotations

from pathlib import Path

from kindgi_dev.domain.checks import AnswerCheck
from kindgi_dev.store import kept_answers
from kindgi_dev.store.db import Database
from kindgi_dev.store.kept_answers import KeptVerdict


def test_a_verdict_is_forgotten_by_its_case_or_its_run(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    said = AnswerCheck(False, "It does not say SECRET.")
    kept_answers.keep_verdicts(db, [KeptVerdict("j", f"q{n}", said, f"c{n}", f"r{n}")
                                    for n in range(3)])  # fmt: skip
    assert kept_answers.forget_verdicts_of(db, ["c0"], ["r1"]) == 2
    assert kept_answers.verdict(db, "j", "q2") == said
    assert [kept_answers.verdict(db, "j", q) for q in ("q0", "q1")] == [None, None]
