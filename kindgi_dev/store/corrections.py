"""Corrections, their verdicts (0.1's judgments) and the copies of judged runs.

A corrector has one live correction per run (`replaced_by IS NULL`); a verdict is live
while `unregistered_at` and `superseded_by` are both NULL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..domain.corrections import Corrector
from .db import Database, Row
from .ids import packed, unpacked
from .jsoncol import JsonRows, dump, load
from .query import Where

"""(kind, id, participant id or "") of whoever made a correction."""

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
_VERDICT_FIELDS = (
    ", ".join(f"v.{c}" for c in _VERDICT)
    + ", c.id AS correction_id, c.tenant_id, c.project_id, c.run_id, "
    "c.corrector_kind AS asserted_by_kind, c.corrector_id AS asserted_by_id, "
    "nullif(c.participant_id, '') AS participant_id"
)
_VERDICTS = "FROM verdicts v JOIN corrections c ON c.seq = v.correction_seq"
_VERDICT_SELECT = f"{_VERDICT_FIELDS}, c.subject_kind, c.subject_id, c.subject_version {_VERDICTS}"
_LIVE = "v.unregistered_at IS NULL AND v.superseded_by IS NULL"
_ROWS = JsonRows("decisions", "answer", "item_value")


def insert_correction(db: Database, correction: dict[str, Any]) -> None:
    """Add a correction (a row dict; missing columns are NULL)."""
    insert_corrections(db, [correction])


def insert_corrections(db: Database, corrections: Sequence[dict[str, Any]]) -> None:
    """Add corrections in one statement's `executemany`, in order (a batch's: #29)."""
    _ROWS.insert(db, "corrections", _CORRECTION, corrections)


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


def get_correction(db: Database, correction_id: str) -> dict[str, Any] | None:
    """One correction, live or replaced."""
    row = db.one(f"SELECT {', '.join(_CORRECTION)} FROM corrections WHERE id = ?", (correction_id,))
    return _ROWS.decoded(row) if row else None


def live_correction(db: Database, run_id: str, corrector: Corrector) -> dict[str, Any] | None:
    """A corrector's one live correction of a run."""
    row = db.one(
        f"SELECT {', '.join(_CORRECTION)} FROM corrections WHERE run_id = ? AND corrector_kind = ? "
        "AND corrector_id = ? AND participant_id = ? AND replaced_by IS NULL",
        (run_id, corrector.kind, corrector.id, corrector.participant_id),
    )
    return _ROWS.decoded(row) if row else None


def update_correction(db: Database, correction_id: str, changes: dict[str, Any]) -> None:
    """Set some columns of a correction (`decisions`/`answer` as values)."""
    _ROWS.update(db, "corrections", ("id", correction_id), changes)


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
    after: list[Any] | None,
    filters: dict[str, Any],
    statuses: Sequence[str] = (),
    include_replaced: bool = False,
) -> list[dict[str, Any]]:
    """Up to `limit + 1` corrections, newest first, filtered by run, agent, project, the
    participant or who corrected (`_CORRECTION_FILTERS`)."""
    where = Where("tenant_id = ?", tenant_id)
    where.named(filters, _CORRECTION_FILTERS)
    where.one_of("status", statuses)
    if not include_replaced:
        where.add("replaced_by IS NULL")
    where.after(after)
    rows = db.all(
        f"SELECT {', '.join(_CORRECTION)} FROM corrections WHERE {where} "
        "ORDER BY created_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_ROWS.decoded(row) for row in rows]


def insert_verdicts(db: Database, verdicts: Sequence[dict[str, Any]]) -> None:
    """Add verdicts (row dicts with their `correction_id`; missing columns are NULL)."""
    if not verdicts:
        return
    with db.transaction() as conn:
        conn.executemany(
            f"INSERT INTO verdicts (correction_seq, {', '.join(_VERDICT)}) VALUES "
            f"((SELECT seq FROM corrections WHERE id = ?), {', '.join('?' * len(_VERDICT))})",
            [
                [
                    v["correction_id"],
                    packed(v["id"]),
                    *(_ROWS.value(c, v.get(c)) for c in _VERDICT[1:]),
                ]
                for v in verdicts
            ],
        )


def get_verdict(db: Database, verdict_id: str) -> dict[str, Any] | None:
    """One verdict, live or not, with its correction's subject."""
    row = db.one(f"SELECT {_VERDICT_SELECT} WHERE v.id = ?", (packed(verdict_id),))
    return _verdict(row) if row else None


def _verdict(row: Row) -> dict[str, Any]:
    """A read verdict row as a dict: its JSON loaded, its id as text."""
    found = _ROWS.decoded(row)
    found["id"] = unpacked(found["id"])
    return found


def verdicts_of(db: Database, correction_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Every verdict of each correction, live or not."""
    found: dict[str, list[dict[str, Any]]] = {cid: [] for cid in correction_ids}
    ids = list(found)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = db.all(
            f"SELECT {_VERDICT_FIELDS} {_VERDICTS} "
            f"WHERE c.id IN ({', '.join('?' * len(chunk))}) ORDER BY v.seq",
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
    db: Database, tenant_id: str, *, limit: int, after: list[Any] | None, filters: dict[str, Any]
) -> list[dict[str, Any]]:
    """Up to `limit + 1` live verdicts, newest first, with their corrections' subjects."""
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
    where.after(after and [after[0], packed(after[1])], "v.created_at, v.id")
    rows = db.all(
        f"SELECT {_VERDICT_SELECT} WHERE {where} ORDER BY v.created_at DESC, v.id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_verdict(row) for row in rows]


def has_copy(db: Database, run_id: str) -> bool:
    """Whether the run's copy was kept already."""
    return db.one("SELECT 1 FROM judged_run_copies WHERE run_id = ?", (run_id,)) is not None


@dataclass(frozen=True)
class RunCopy:
    """A judged run's copy, kept at its first verdict: what it ran (`{kind, id, version}`),
    its input, context (history, `toolEnv`, …), output and segments, and when it was taken."""

    run_id: str
    subject: dict[str, str]
    captured_at: str
    input: Any = None
    context: dict[str, Any] | None = None
    output: Any = None
    segments: Any = None


def insert_copy(db: Database, copy: RunCopy) -> None:
    """Keep a judged run's copy, unless one was kept at an earlier judgment."""
    db.run(
        "INSERT OR IGNORE INTO judged_run_copies "
        "(run_id, subject, input, context, output, segments, captured_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            copy.run_id,
            dump(copy.subject),
            dump(copy.input),
            dump(copy.context),
            dump(copy.output),
            dump(copy.segments),
            copy.captured_at,
        ),
    )


def get_copy(db: Database, run_id: str) -> RunCopy | None:
    """The copy of a judged run, None when no verdict was given on it yet."""
    row = db.one(
        "SELECT run_id, subject, input, context, output, segments, captured_at "
        "FROM judged_run_copies WHERE run_id = ?",
        (run_id,),
    )
    if row is None:
        return None
    return RunCopy(
        run_id=row["run_id"],
        subject=load(row["subject"]),
        captured_at=row["captured_at"],
        input=load(row["input"]),
        context=load(row["context"]),
        output=load(row["output"]),
        segments=load(row["segments"]),
    )


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
    return {t: db.one(f"SELECT count(*) FROM {t}")[0] for t in tables}  # type: ignore[index]


def erase_copies(db: Database, run_ids: Sequence[str]) -> None:
    """Clear the content of the copies taken of these runs at their first verdict."""
    for start in range(0, len(run_ids), 500):
        chunk = list(run_ids[start : start + 500])
        db.run(
            "UPDATE judged_run_copies SET input = NULL, context = NULL, output = NULL "
            f"WHERE run_id IN ({', '.join('?' * len(chunk))})",
            chunk,
        )
