"""An agent's test set: its cases read from corrections and hand cases, retirements, frozen
versions, and the `/v1/test-sets` registry.

Which corrections are cases is kept in `corrections.case_state` by m0010's triggers, with
each set's counts, so a page needs no more than a page of rows (keyset paging over
`(created_at, id)`, newest first, on `corrections_case_page` and `hand_cases_agent`) and
the counts are one row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..domain.corrections import Principal
from ..domain.expectations import GivenItem
from ..domain.json import JSONObject
from ..domain.stored_cases import FreezingCase
from ..domain.test_sets import (
    CaseRow,
    CorrectionFacts,
    RegistryEntry,
    Retirement,
    SetCaseCounts,
    expected_item,
)
from . import case_json
from .db import Database
from .jsoncol import dump, load, load_object
from .query import chunks, marks

Retired = str
"""`exclude` (active cases), `include` (all) or `only` (retired ones)."""

_RETIREMENT = "t.reason AS reason, t.by_kind AS by_kind, t.by_id AS by_id, t.retired_at AS at"
_LIVE = "v.unregistered_at IS NULL AND v.superseded_by IS NULL"


def _retired_clause(retired: Retired) -> str:
    return {"exclude": " AND t.case_id IS NULL", "only": " AND t.case_id IS NOT NULL"}.get(
        retired, ""
    )


_CASE_STATES = {"exclude": "= 1", "only": "= 2", "include": "> 0"}
"""`corrections.case_state` (kept by m0010's triggers) of the cases each `Retired` reads."""


def _correction_cases_sql(retired: Retired) -> str:
    """FROM/WHERE of the corrections that are cases of one agent's set in one project."""
    return (
        "FROM corrections c LEFT JOIN case_retirements t ON t.case_id = c.id "
        "WHERE c.subject_id = ? AND c.project_id = ? AND c.tenant_id = ? "
        f"AND c.case_state {_CASE_STATES[retired]}"
    )


def _hand_cases_sql() -> str:
    return (
        "FROM hand_cases h LEFT JOIN case_retirements t ON t.case_id = h.id "
        "WHERE h.agent_id = ? AND h.project_id = ? AND h.tenant_id = ?"
    )


def correction_cases(
    db: Database,
    scope: tuple[str, str, str],
    *,
    retired: Retired,
    limit: int | None,
    after: Sequence[str] | None,
    only_id: str | None = None,
) -> list[CaseRow]:
    """Up to `limit` correction cases of (agent, project, tenant), newest first, after a position
    (or the one with `only_id`)."""
    sql = (
        "SELECT c.id, c.project_id, c.run_id, c.subject_version AS made_on, c.restricted, "
        "c.judge_class_id, "
        "c.decisions, c.answer, c.corrector_kind AS added_by_kind, "
        "c.corrector_id AS added_by_id, c.created_at, c.updated_at, "
        f"{_RETIREMENT} {_correction_cases_sql(retired)}"
    )
    params: list[str | int] = list(scope)
    if only_id:
        sql += " AND c.id = ?"
        params.append(only_id)
    if after:
        sql += " AND (c.created_at, c.id) < (?, ?)"
        params.extend(after)
    sql += " ORDER BY c.created_at DESC, c.id DESC LIMIT ?"
    params.append(-1 if limit is None else limit)
    return [_case_row(r, hand=False) for r in db.all(sql, params)]


def hand_cases(
    db: Database,
    scope: tuple[str, str, str],
    *,
    retired: Retired,
    limit: int | None,
    after: Sequence[str] | None,
) -> list[CaseRow]:
    """Up to `limit` hand cases of (agent, project, tenant), newest first, after a position."""
    sql = f"SELECT h.*, {_RETIREMENT} {_hand_cases_sql()}{_retired_clause(retired)}"
    params: list[str | int] = list(scope)
    if after:
        sql += " AND (h.created_at, h.id) < (?, ?)"
        params.extend(after)
    sql += " ORDER BY h.created_at DESC, h.id DESC LIMIT ?"
    params.append(-1 if limit is None else limit)
    return [_case_row(r, hand=True) for r in db.all(sql, params)]


def _case_row(row: sqlite3.Row, *, hand: bool) -> CaseRow:
    """A correction case's row or a hand case's, its kept expectations loaded as JSON."""
    return CaseRow(
        id=row["id"],
        project_id=row["project_id"],
        run_id=row["run_id"],
        made_on=row["made_on"],
        added_by_kind=row["added_by_kind"],
        added_by_id=row["added_by_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        restricted=None if hand else bool(row["restricted"]),
        judge_class_id=None if hand else row["judge_class_id"],
        decisions=load(row["decisions"]),
        answer=load(row["answer"]),
        items=load(row["items"]) if hand else None,
        tenant_id=row["tenant_id"] if hand else None,
        agent_id=row["agent_id"] if hand else None,
        retired=_retirement(row),
    )


def _retirement(row: sqlite3.Row) -> Retirement | None:
    if row["reason"] is None:
        return None
    return Retirement(row["reason"], Principal(row["by_kind"], row["by_id"]), row["at"])


def case_counts(db: Database, scope: tuple[str, str, str]) -> SetCaseCounts:
    """How many cases the set has, and how many were retired (kept by m0010's triggers as
    corrections, verdicts, retirements and hand cases change)."""
    row = db.one(
        "SELECT active, retired FROM test_set_counts "
        "WHERE agent_id = ? AND project_id = ? AND tenant_id = ?",
        scope,
    )
    return SetCaseCounts(row["active"], row["retired"]) if row else SetCaseCounts(0, 0)


def live_items(db: Database, correction_ids: Sequence[str]) -> dict[str, list[GivenItem]]:
    """The items the live verdicts of some corrections expect, by correction id, in rank
    order."""
    found: dict[str, list[GivenItem]] = {cid: [] for cid in correction_ids}
    ids = list(correction_ids)
    for chunk in chunks(ids):
        rows = db.all(
            "SELECT c.id AS correction_id, v.item_key, v.pointer, v.rank, v.verdict, v.reason "
            "FROM verdicts v JOIN corrections c ON c.seq = v.correction_seq "
            f"WHERE c.id IN ({marks(chunk)}) "
            f"AND {_LIVE} ORDER BY c.id, v.rank, v.created_at",
            chunk,
        )
        for row in rows:
            item = expected_item(
                row["item_key"], row["pointer"], row["rank"], row["verdict"], row["reason"]
            )
            found[row["correction_id"]].append(item)
    return found


def correction_facts(db: Database, correction_id: str) -> CorrectionFacts | None:
    """What deciding whether one correction is a case needs, with its agent and project."""
    row = db.one(
        "SELECT c.id, c.tenant_id, c.project_id, c.subject_kind, c.subject_id, c.status, "
        "c.replaced_by, c.erased_at, r.replay_of IS NOT NULL AS on_replay, "
        "(c.decisions IS NOT NULL OR c.answer IS NOT NULL OR EXISTS ("
        f"SELECT 1 FROM verdicts v WHERE v.correction_seq = c.seq AND {_LIVE})) AS has_expectation "
        "FROM corrections c JOIN runs r ON r.id = c.run_id WHERE c.id = ?",
        (correction_id,),
    )
    if row is None:
        return None
    return CorrectionFacts(
        row["id"],
        row["tenant_id"],
        row["project_id"],
        row["subject_kind"],
        row["subject_id"],
        row["status"],
        row["replaced_by"],
        row["erased_at"],
        bool(row["on_replay"]),
        bool(row["has_expectation"]),
    )


def hand_case(db: Database, case_id: str) -> CaseRow | None:
    """One hand case with its retirement, if any."""
    row = db.one(
        f"SELECT h.*, {_RETIREMENT} FROM hand_cases h "
        "LEFT JOIN case_retirements t ON t.case_id = h.id WHERE h.id = ?",
        (case_id,),
    )
    return _case_row(row, hand=True) if row else None


def insert_hand_case(db: Database, case: CaseRow) -> None:
    """Store a case added by hand."""
    db.run(
        "INSERT INTO hand_cases (id, tenant_id, project_id, agent_id, run_id, made_on, items, "
        "decisions, answer, added_by_kind, added_by_id, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            case.id,
            case.tenant_id,
            case.project_id,
            case.agent_id,
            case.run_id,
            case.made_on,
            dump(case.items),
            dump(case.decisions),
            dump(case.answer),
            case.added_by_kind,
            case.added_by_id,
            case.created_at,
            case.updated_at,
        ),
    )


def insert_retirement(
    db: Database, tenant_id: str, case_id: str, reason: str, by: Mapping[str, str], at: str
) -> None:
    """Retire a case (kept; there is no un-retire)."""
    db.run(
        "INSERT INTO case_retirements (case_id, tenant_id, reason, by_kind, by_id, retired_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (case_id, tenant_id, reason, by["kind"], by["id"], at),
    )


def retire_hand_cases_of(
    db: Database, run_ids: Sequence[str], reason: str, by: Mapping[str, str], at: str
) -> int:
    """Retire the hand cases made of these runs (those not retired yet); how many."""
    retired = 0
    for chunk in chunks(run_ids):
        retired += db.run(
            "INSERT OR IGNORE INTO case_retirements "
            "(case_id, tenant_id, reason, by_kind, by_id, retired_at) "
            f"SELECT id, tenant_id, ?, ?, ?, ? FROM hand_cases WHERE run_id IN ({marks(chunk)})",
            [reason, by["kind"], by["id"], at, *chunk],
        )
    return retired


def last_version(db: Database, test_set_id: str) -> int:
    """The newest frozen version of a test set, 0 before the first."""
    row = db.one(
        "SELECT coalesce(max(version), 0) AS v FROM test_set_versions WHERE test_set_id = ?",
        (test_set_id,),
    )
    return int(row["v"]) if row else 0


@dataclass(frozen=True)
class FrozenVersionRow:
    """A frozen version of an agent's test set as stored: its number, whose set, how many
    cases and when (its cases are `test_set_version_cases`)."""

    test_set_id: str
    version: int
    tenant_id: str
    agent_id: str
    project_id: str
    case_count: int
    frozen_at: str


def insert_version(db: Database, meta: FrozenVersionRow) -> None:
    """Store a frozen version's row (its cases go in with `insert_version_cases`)."""
    db.run(
        "INSERT INTO test_set_versions (test_set_id, version, tenant_id, agent_id, "
        "project_id, case_count, frozen_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            meta.test_set_id,
            meta.version,
            meta.tenant_id,
            meta.agent_id,
            meta.project_id,
            meta.case_count,
            meta.frozen_at,
        ),
    )


def insert_version_cases(
    db: Database,
    test_set_id: str,
    version: int,
    first: int,
    cases: Sequence[FreezingCase],
) -> None:
    """Store some of a frozen version's cases, in the order given, from position `first`."""
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO test_set_version_cases (test_set_id, version, seq, body) "
            "VALUES (?, ?, ?, ?)",
            [
                (
                    test_set_id,
                    version,
                    first + i,
                    dump(case_json.frozen_case_json(c)),
                )
                for i, c in enumerate(cases)
            ],
        )


def versions(db: Database, test_set_id: str) -> list[FrozenVersionRow]:
    """Every frozen version of a test set, oldest first."""
    rows = db.all(
        "SELECT test_set_id, version, tenant_id, agent_id, project_id, case_count, frozen_at "
        "FROM test_set_versions WHERE test_set_id = ? ORDER BY version",
        (test_set_id,),
    )
    return [FrozenVersionRow(**dict(r)) for r in rows]


def version_cases(
    db: Database, test_set_id: str, version: int, *, after: int, limit: int
) -> list[tuple[int, JSONObject]]:
    """Up to `limit` (seq, case) of a frozen version after a position, in stored order (as
    `case_json.frozen_case_json` keeps them)."""
    rows = db.all(
        "SELECT seq, body FROM test_set_version_cases WHERE test_set_id = ? AND version = ? "
        "AND seq > ? ORDER BY seq LIMIT ?",
        (test_set_id, version, after, limit),
    )
    return [(r["seq"], _object(r["body"])) for r in rows]


def _object(text: str) -> JSONObject:
    """A kept case: always an object."""
    value = load(text)
    assert isinstance(value, dict), "a frozen case is kept as an object"
    return value


def replayable_seqs(
    db: Database, test_set_id: str, version: int, *, experts_only: bool
) -> list[int]:
    """The positions of a frozen version's cases that can be replayed: those carrying a copy
    of their run, or whose run is still stored (only experts' cases with `experts_only`)."""
    rows = db.all(
        "SELECT seq FROM test_set_version_cases v WHERE test_set_id = ? AND version = ? "
        f"AND (json_type(body, '{case_json.RUN}') = 'object' "
        "OR EXISTS (SELECT 1 FROM runs r "
        f"WHERE r.id = json_extract(v.body, '{case_json.RUN_ID}'))) "
        f"AND (? = 0 OR json_extract(body, '{case_json.EXPERT}')) ORDER BY seq",
        (test_set_id, version, 1 if experts_only else 0),
    )
    return [r["seq"] for r in rows]


def frozen_sets(db: Database, tenant_id: str) -> list[tuple[str, str]]:
    """(agent id, project id) of every agent test set frozen at least once."""
    rows = db.all(
        "SELECT DISTINCT agent_id AS a, project_id AS p FROM test_set_versions WHERE tenant_id = ?",
        (tenant_id,),
    )
    return sorted((r["a"], r["p"]) for r in rows)


def insert_entry(db: Database, entry: RegistryEntry, created_at: str) -> None:
    """Publish a registry entry's version."""
    db.run(
        "INSERT INTO test_set_registry (id, version, tenant_id, kind, description, spec, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            entry.id,
            entry.version,
            entry.tenant_id,
            entry.kind,
            entry.description,
            dump(entry.spec),
            created_at,
        ),
    )


def entries(db: Database, tenant_id: str, entry_id: str | None = None) -> list[RegistryEntry]:
    """Registry entries of a tenant (one id's when given)."""
    sql = "SELECT id, version, tenant_id, kind, description, spec FROM test_set_registry "
    sql += "WHERE tenant_id = ?" + (" AND id = ?" if entry_id else "")
    rows = db.all(sql, (tenant_id, entry_id) if entry_id else (tenant_id,))
    return [
        RegistryEntry(
            id=r["id"],
            tenant_id=r["tenant_id"],
            version=r["version"],
            kind=r["kind"],
            spec=load_object(r["spec"]),
            description=r["description"],
        )
        for r in rows
    ]
