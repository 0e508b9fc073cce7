"""A correction's verdicts (0.1's judgments): stored, read, listed and ended. Their
correction's module (`store.corrections`) hands these out too, so its callers keep one name.

A verdict is live while `unregistered_at` and `superseded_by` are both NULL; its run and
corrector are its correction's columns (m0020), its id packed (m0021).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..domain.corrections import CorrectedItem, Corrector, StoredVerdict, Subject
from .db import Database, Row
from .ids import packed, unpacked
from .jsoncol import dump, load
from .query import SQLValue, Where, chunks, marks
from .staging import insert_staged

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


def _verdict_rows(verdicts: Sequence[StoredVerdict]) -> list[tuple[SQLValue, ...]]:
    """The verdicts' column values, each item value dumped once however many verdicts share it
    (a batch's do)."""
    written: dict[int, str | None] = {}
    rows = []
    for v in verdicts:
        key = id(v.item_value)
        if key not in written:
            written[key] = dump(v.item_value)
        rows.append(_verdict_values(v, written[key]))
    return rows


def insert_verdicts(db: Database, verdicts: Sequence[StoredVerdict]) -> None:
    """Add verdicts to their corrections."""
    if not verdicts:
        return
    rows = _verdict_rows(verdicts)
    with db.transaction() as conn:
        conn.executemany(
            f"INSERT INTO verdicts (correction_seq, {', '.join(_VERDICT)}) VALUES "
            f"((SELECT seq FROM corrections WHERE id = ?), {', '.join('?' * len(_VERDICT))})",
            rows,
        )


def insert_verdicts_staged(db: Database, verdicts: Sequence[StoredVerdict]) -> None:
    """Add a batch's verdicts to their corrections (`staging`: m0010's verdict trigger
    costs once a few thousand, not once a row), in order, as `insert_verdicts` would."""
    rows = _verdict_rows(verdicts)
    columns = ", ".join(_VERDICT)
    with db.transaction() as conn:
        insert_staged(
            conn,
            "verdicts_staged",
            ("correction_id", *_VERDICT),
            rows,
            f"INSERT INTO verdicts (correction_seq, {columns}) "
            "SELECT (SELECT seq FROM corrections WHERE id = s.correction_id), "
            f"{', '.join(f's.{c}' for c in _VERDICT)} FROM temp.verdicts_staged s ORDER BY s.rowid",
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
    for chunk in chunks(ids):
        rows = db.all(
            f"{_VERDICT_SELECT} WHERE c.id IN ({marks(chunk)}) ORDER BY v.seq",
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
