"""Corrections: stored, read, listed, replaced and changed. Their verdicts (0.1's
judgments) are `store.verdicts`, handed out here too; the copies of judged runs are
`judged_copies`.

A corrector has one live correction per run (`replaced_by IS NULL`).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..domain.corrections import KEEP, Corrector, Keep, StoredCorrection, Subject
from ..domain.expectations import Answer, Decisions
from .db import Database, Row
from .expectations import answer_json, answer_of, decisions_json, decisions_of
from .jsoncol import dump, load
from .query import SQLValue, Where, chunks, marks
from .staging import insert_staged
from .verdicts import end_live_verdicts as end_live_verdicts
from .verdicts import get_verdict as get_verdict
from .verdicts import insert_verdicts as insert_verdicts
from .verdicts import insert_verdicts_staged as insert_verdicts_staged
from .verdicts import list_verdicts as list_verdicts
from .verdicts import supersede as supersede
from .verdicts import unregister_verdict as unregister_verdict
from .verdicts import verdicts_of as verdicts_of

_CORRECTION = (
    "id",
    "tenant_id",
    "project_id",
    "run_id",
    "subject_kind",
    "subject_id",
    "subject_version",
    "corrector_kind",
    "corrector_id",
    "participant_id",
    "judge_class_id",
    "restricted",
    "decisions",
    "answer",
    "status",
    "replaced_by",
    "replaced_at",
    "erased_at",
    "created_at",
    "updated_at",
)
_CORRECTION_SELECT = f"SELECT {', '.join(_CORRECTION)} FROM corrections"


def _correction(row: Row) -> StoredCorrection:
    return StoredCorrection(
        id=row["id"],
        tenant_id=row["tenant_id"],
        project_id=row["project_id"],
        run_id=row["run_id"],
        subject=Subject(row["subject_kind"], row["subject_id"], row["subject_version"]),
        corrector=Corrector(row["corrector_kind"], row["corrector_id"], row["participant_id"]),
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        judge_class_id=row["judge_class_id"],
        restricted=bool(row["restricted"]),
        decisions=decisions_of(load(row["decisions"])),
        answer=answer_of(load(row["answer"])),
        replaced_by=row["replaced_by"],
        replaced_at=row["replaced_at"],
        erased_at=row["erased_at"],
    )


def _correction_values(c: StoredCorrection) -> tuple[SQLValue, ...]:
    """A correction's columns, in `_CORRECTION`'s order."""
    return (
        c.id,
        c.tenant_id,
        c.project_id,
        c.run_id,
        c.subject.kind,
        c.subject.id,
        c.subject.version,
        c.corrector.kind,
        c.corrector.id,
        c.corrector.participant_id,
        c.judge_class_id,
        1 if c.restricted else 0,
        dump(decisions_json(c.decisions)),
        dump(answer_json(c.answer)),
        c.status,
        c.replaced_by,
        c.replaced_at,
        c.erased_at,
        c.created_at,
        c.updated_at,
    )


def insert_correction(db: Database, correction: StoredCorrection) -> None:
    """Add a correction."""
    db.run(
        f"INSERT INTO corrections ({', '.join(_CORRECTION)}) "
        f"VALUES ({', '.join('?' * len(_CORRECTION))})",
        _correction_values(correction),
    )


def insert_corrections(
    db: Database, corrections: Sequence[StoredCorrection], case_states: Sequence[int]
) -> None:
    """Add corrections with one `executemany`, in order (a batch's: #29), each with the
    `case_state` m0010's triggers would give it once its verdicts are in, so that their
    inserts find nothing to change; each agent's set then counts its new cases in one
    statement, where the triggers took three a correction."""
    with db.transaction() as conn:
        conn.executemany(
            f"INSERT INTO corrections ({', '.join(_CORRECTION)}, case_state) "
            f"VALUES ({', '.join('?' * (len(_CORRECTION) + 1))})",
            [
                (*_correction_values(c), state)
                for c, state in zip(corrections, case_states, strict=True)
            ],
        )
        _count_new_cases(conn, corrections, case_states)


def insert_corrections_staged(
    db: Database, corrections: Sequence[StoredCorrection], case_states: Sequence[int]
) -> None:
    """`insert_corrections` for a batch: the rows staged and moved a few thousand a
    statement (`staging`: m0010's insert triggers cost once a statement, not once a row)."""
    columns = (*_CORRECTION, "case_state")
    with db.transaction() as conn:
        insert_staged(
            conn,
            "corrections_staged",
            columns,
            [
                (*_correction_values(c), state)
                for c, state in zip(corrections, case_states, strict=True)
            ],
            f"INSERT INTO corrections ({', '.join(columns)}) "
            f"SELECT {', '.join(columns)} FROM temp.corrections_staged ORDER BY rowid",
        )
        _count_new_cases(conn, corrections, case_states)


def _count_new_cases(
    conn: sqlite3.Connection, corrections: Sequence[StoredCorrection], case_states: Sequence[int]
) -> None:
    """Raise each agent's set's count by its new active cases, one statement a set (the
    triggers took three a correction)."""
    added = Counter(
        (c.subject.id, c.project_id, c.tenant_id)
        for c, state in zip(corrections, case_states, strict=True)
        if state == 1
    )
    conn.executemany(
        "UPDATE test_set_counts SET active = active + ? "
        "WHERE agent_id = ? AND project_id = ? AND tenant_id = ?",
        [(count, *scope) for scope, count in added.items()],
    )


def live_correctors(
    db: Database, wanted: Sequence[tuple[str, Corrector]]
) -> set[tuple[str, Corrector]]:
    """Which of these (run id, corrector) have a live correction of that run."""
    found: set[tuple[str, Corrector]] = set()
    for start in range(0, len(wanted), 200):
        chunk = wanted[start : start + 200]
        rows = db.all(
            f"WITH wanted (r, k, i, p) AS (VALUES {', '.join(['(?, ?, ?, ?)'] * len(chunk))}) "
            "SELECT run_id, corrector_kind, corrector_id, participant_id FROM wanted "
            "CROSS JOIN corrections ON run_id = r AND corrector_kind = k AND corrector_id = i "
            "AND participant_id = p WHERE replaced_by IS NULL",
            [value for run_id, corrector in chunk for value in (run_id, *corrector)],
        )
        found.update((r[0], Corrector(r[1], r[2], r[3])) for r in rows)
    return found


def get_correction(db: Database, correction_id: str) -> StoredCorrection | None:
    """One correction, live or replaced."""
    row = db.one(f"{_CORRECTION_SELECT} WHERE id = ?", (correction_id,))
    return _correction(row) if row else None


def live_correction(db: Database, run_id: str, corrector: Corrector) -> StoredCorrection | None:
    """A corrector's one live correction of a run."""
    row = db.one(
        f"{_CORRECTION_SELECT} WHERE run_id = ? AND corrector_kind = ? "
        "AND corrector_id = ? AND participant_id = ? AND replaced_by IS NULL",
        (run_id, corrector.kind, corrector.id, corrector.participant_id),
    )
    return _correction(row) if row else None


def touch_correction(db: Database, correction_id: str, at: str) -> None:
    """Note that a correction changed (a verdict was added or removed)."""
    db.run("UPDATE corrections SET updated_at = ? WHERE id = ?", (at, correction_id))


def mark_replaced(db: Database, correction_id: str, by: str, at: str) -> None:
    """A correction is replaced by the corrector's new one of the same run."""
    db.run(
        "UPDATE corrections SET replaced_by = ?, replaced_at = ?, updated_at = ? WHERE id = ?",
        (by, at, at, correction_id),
    )


@dataclass(frozen=True)
class CorrectionChange:
    """What an update of a correction sets: its time, and each part not `KEEP` (None
    removes decisions or an answer)."""

    updated_at: str
    status: str | Keep = KEEP
    decisions: Decisions | Keep | None = KEEP
    answer: Answer | Keep | None = KEEP


def change_correction(db: Database, correction_id: str, change: CorrectionChange) -> None:
    """Set a correction's status, decisions or answer, as `change` says."""
    columns: dict[str, SQLValue] = {}
    if not isinstance(change.status, Keep):
        columns["status"] = change.status
    if not isinstance(change.decisions, Keep):
        columns["decisions"] = dump(decisions_json(change.decisions))
    if not isinstance(change.answer, Keep):
        columns["answer"] = dump(answer_json(change.answer))
    columns["updated_at"] = change.updated_at
    db.run(
        f"UPDATE corrections SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ?",
        [*columns.values(), correction_id],
    )


_CORRECTION_FILTERS = {
    "run_id": "run_id = ?",
    "agent_id": "subject_id = ?",
    "project_id": "project_id = ?",
    "participant_id": "participant_id = ?",
    "corrected_by": "corrector_id = ?",
}


def list_corrections(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    filters: Mapping[str, SQLValue],
    statuses: Sequence[str] = (),
    include_replaced: bool = False,
) -> list[StoredCorrection]:
    """Up to `limit + 1` corrections, newest first, filtered by run, agent, project, the
    participant or who corrected (`_CORRECTION_FILTERS`)."""
    where = Where("tenant_id = ?", tenant_id)
    where.named(filters, _CORRECTION_FILTERS)
    where.one_of("status", statuses)
    if not include_replaced:
        where.add("replaced_by IS NULL")
    where.after(after)
    rows = db.all(
        f"{_CORRECTION_SELECT} WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_correction(row) for row in rows]


def erase_on_runs(db: Database, run_ids: Sequence[str], at: str) -> int:
    """Mark every correction of these runs erased and clear its words (reasons,
    `shouldSay`, `why`) and the values its verdicts copied from the run, once the runs'
    own content is erased: a case replays its run's words, and whoever corrected it wrote
    about them; how many corrections."""
    erased = 0
    with db.transaction() as conn:
        for chunk in chunks(run_ids):
            which = f"run_id IN ({marks(chunk)})"
            erased += _erase_words(conn, which, chunk, at, "reason = NULL, item_value = NULL")[0]
    return erased


def of_participant(db: Database, tenant_id: str, participant_id: str) -> list[str]:
    """The ids of the corrections an app's end user made (a test set's case of one has its id)."""
    rows = db.all(
        "SELECT id FROM corrections WHERE tenant_id = ? AND participant_id = ?",
        (tenant_id, participant_id),
    )
    return [r["id"] for r in rows]


def erase_participant(
    db: Database, tenant_id: str, participant_id: str, at: str
) -> tuple[int, int]:
    """Clear one person's words (reasons, `shouldSay`, `why`) and mark their corrections
    erased; the verdicts stay. (corrections, verdicts) touched."""
    with db.transaction() as conn:
        which = "tenant_id = ? AND participant_id = ?"
        return _erase_words(conn, which, [tenant_id, participant_id], at, "reason = NULL")


def _erase_words(
    conn: sqlite3.Connection, which: str, params: Sequence[SQLValue], at: str, verdicts: str
) -> tuple[int, int]:
    """Clear `verdicts`' columns of the corrections `which` selects, and mark them erased
    without their `shouldSay` and `why`; (corrections, verdicts) touched."""
    cleared = conn.execute(
        f"UPDATE verdicts SET {verdicts} WHERE correction_seq IN "
        f"(SELECT seq FROM corrections WHERE {which})",
        params,
    ).rowcount
    erased = conn.execute(
        "UPDATE corrections SET erased_at = coalesce(erased_at, ?), updated_at = ?, "
        "answer = CASE WHEN answer IS NULL THEN NULL "
        f"ELSE json_remove(answer, '$.shouldSay', '$.why') END WHERE {which}",
        [at, at, *params],
    ).rowcount
    return erased, cleared
