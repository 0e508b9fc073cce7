"""Corrections and their verdicts (0.1's judgments); the copies of judged runs are
`judged_copies`.

A corrector has one live correction per run (`replaced_by IS NULL`); a verdict is live
while `unregistered_at` and `superseded_by` are both NULL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..domain.corrections import (
    KEEP,
    CorrectedItem,
    Corrector,
    Keep,
    StoredCorrection,
    StoredVerdict,
    Subject,
)
from ..domain.expectations import Answer, Decisions
from .db import Database, Row
from .expectations import answer_json, answer_of, decisions_json, decisions_of
from .ids import packed, unpacked
from .jsoncol import dump, load
from .query import SQLValue, Where

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
_VERDICT = (
    "id",
    "item_key",
    "pointer",
    "rank",
    "verdict",
    "reason",
    "judge_class_id",
    "restricted",
    "item_value",
    "created_at",
    "unregistered_at",
    "superseded_by",
)
"""A verdict's own columns (its `id` packed: m0021); the rest of a verdict row is its
correction's (m0020)."""
_VERDICT_SELECT = (
    "SELECT "
    + ", ".join(f"v.{c}" for c in _VERDICT)
    + ", c.id AS correction_id, c.tenant_id, c.project_id, c.run_id, c.corrector_kind, "
    "c.corrector_id, c.participant_id, c.subject_kind, c.subject_id, c.subject_version "
    "FROM verdicts v JOIN corrections c ON c.seq = v.correction_seq"
)
_LIVE = "v.unregistered_at IS NULL AND v.superseded_by IS NULL"


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


def _verdict_values(v: StoredVerdict, item_value: str | None) -> tuple[SQLValue, ...]:
    """A verdict's correction, then its own columns in `_VERDICT`'s order (its correction's
    run and corrector are the correction's columns), its item's value as `item_value`."""
    return (
        v.correction_id,
        packed(v.id),
        v.item.key,
        v.item.pointer,
        v.item.rank,
        v.item.verdict,
        v.item.reason,
        v.judge_class_id,
        1 if v.restricted else 0,
        item_value,
        v.created_at,
        v.unregistered_at,
        v.superseded_by,
    )


def insert_verdicts(db: Database, verdicts: Sequence[StoredVerdict]) -> None:
    """Add verdicts to their corrections."""
    if not verdicts:
        return
    written: dict[int, str | None] = {}  # a value many verdicts share (a batch's) is dumped once
    rows = []
    for v in verdicts:
        key = id(v.item_value)
        if key not in written:
            written[key] = dump(v.item_value)
        rows.append(_verdict_values(v, written[key]))
    with db.transaction() as conn:
        conn.executemany(
            f"INSERT INTO verdicts (correction_seq, {', '.join(_VERDICT)}) VALUES "
            f"((SELECT seq FROM corrections WHERE id = ?), {', '.join('?' * len(_VERDICT))})",
            rows,
        )


def get_verdict(db: Database, verdict_id: str) -> StoredVerdict | None:
    """One verdict, live or not."""
    row = db.one(f"{_VERDICT_SELECT} WHERE v.id = ?", (packed(verdict_id),))
    return _verdict(row) if row else None


def _verdict(row: Row) -> StoredVerdict:
    """A read verdict row as its record: its JSON loaded, its id as text."""
    return StoredVerdict(
        id=unpacked(row["id"]),
        correction_id=row["correction_id"],
        tenant_id=row["tenant_id"],
        project_id=row["project_id"],
        run_id=row["run_id"],
        subject=Subject(row["subject_kind"], row["subject_id"], row["subject_version"]),
        asserted_by=Corrector(row["corrector_kind"], row["corrector_id"], row["participant_id"]),
        item=CorrectedItem(
            row["item_key"], row["pointer"], row["rank"], row["verdict"], row["reason"]
        ),
        created_at=row["created_at"],
        judge_class_id=row["judge_class_id"],
        restricted=bool(row["restricted"]),
        item_value=load(row["item_value"]),
        unregistered_at=row["unregistered_at"],
        superseded_by=row["superseded_by"],
    )


def verdicts_of(db: Database, correction_ids: Sequence[str]) -> dict[str, list[StoredVerdict]]:
    """Every verdict of each correction, live or not."""
    found: dict[str, list[StoredVerdict]] = {cid: [] for cid in correction_ids}
    ids = list(found)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.all(
            f"{_VERDICT_SELECT} WHERE c.id IN ({', '.join('?' * len(chunk))}) ORDER BY v.seq",
            chunk,
        )
        for row in rows:
            found[row["correction_id"]].append(_verdict(row))
    return found


def supersede(db: Database, run_id: str, corrector: Corrector, key: str, by: str, at: str) -> int:
    """End a corrector's live verdicts on one item of a run, pointing them to `by`."""
    return db.run(
        "UPDATE verdicts SET unregistered_at = ?, superseded_by = ? WHERE correction_seq IN "
        "(SELECT seq FROM corrections WHERE run_id = ? AND corrector_kind = ? "
        "AND corrector_id = ? AND participant_id = ?) "
        "AND item_key = ? AND unregistered_at IS NULL AND superseded_by IS NULL",
        (at, by, run_id, corrector.kind, corrector.id, corrector.participant_id, key),
    )


def end_live_verdicts(db: Database, correction_id: str, at: str) -> int:
    """End every live verdict of a correction (it was replaced)."""
    return db.run(
        "UPDATE verdicts SET unregistered_at = ? "
        "WHERE correction_seq = (SELECT seq FROM corrections WHERE id = ?) "
        "AND unregistered_at IS NULL AND superseded_by IS NULL",
        (at, correction_id),
    )


def unregister_verdict(db: Database, verdict_id: str, at: str) -> int:
    """Remove one live verdict; 0 when it was not live."""
    return db.run(
        "UPDATE verdicts SET unregistered_at = ? WHERE id = ? "
        "AND unregistered_at IS NULL AND superseded_by IS NULL",
        (at, packed(verdict_id)),
    )


def list_verdicts(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    filters: Mapping[str, SQLValue],
) -> list[StoredVerdict]:
    """Up to `limit + 1` live verdicts, newest first."""
    conditions = {
        "run_id": "c.run_id = ?",
        "agent_id": "c.subject_kind = 'agent' AND c.subject_id = ?",
        "agent_version": "c.subject_version = ?",
        "flow_id": "c.subject_kind = 'flow' AND c.subject_id = ?",
        "verdict": "v.verdict = ?",
        "judge_class_id": "v.judge_class_id = ?",
        "participant_id": "c.participant_id = ?",
        "project_id": "c.project_id = ?",
        "org_id": "c.project_id IN (SELECT id FROM projects WHERE org_id = ?)",
    }
    where = Where("c.tenant_id = ?", tenant_id)
    where.add(_LIVE)
    where.named(filters, conditions)
    where.after(after and [after[0], _packed_id(after[1])], "v.created_at, v.id")
    rows = db.all(
        f"{_VERDICT_SELECT} WHERE {where} ORDER BY v.created_at DESC, v.id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_verdict(row) for row in rows]


def _packed_id(value: SQLValue) -> SQLValue:
    """A verdict id of a keyset position, as the `id` column keeps it."""
    return packed(value) if isinstance(value, str) else value


def erase_participant(
    db: Database, tenant_id: str, participant_id: str, at: str
) -> tuple[int, int]:
    """Clear one person's words (reasons, `shouldSay`, `why`) and mark their corrections
    erased; the verdicts stay. (corrections, verdicts) touched."""
    with db.transaction() as conn:
        verdicts = conn.execute(
            "UPDATE verdicts SET reason = NULL WHERE correction_seq IN "
            "(SELECT seq FROM corrections WHERE tenant_id = ? AND participant_id = ?)",
            (tenant_id, participant_id),
        ).rowcount
        corrections = conn.execute(
            "UPDATE corrections SET erased_at = coalesce(erased_at, ?), updated_at = ?, "
            "answer = CASE WHEN answer IS NULL THEN NULL "
            "ELSE json_remove(answer, '$.shouldSay', '$.why') END "
            "WHERE tenant_id = ? AND participant_id = ?",
            (at, at, tenant_id, participant_id),
        ).rowcount
    return corrections, verdicts


def count_rows(db: Database) -> dict[str, int]:
    """How many rows each table of this store holds (for checks that nothing was written)."""
    tables = ("corrections", "verdicts", "judged_run_copies", "judge_classes")
    counted = {t: db.one(f"SELECT count(*) FROM {t}") for t in tables}
    return {t: 0 if row is None else int(row[0]) for t, row in counted.items()}
