"""Migrations that rewrite stored rows keep what a user recorded readable."""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kindgi_dev.domain.corrections import StoredVerdict
from kindgi_dev.domain.test_sets import SetCaseCounts
from kindgi_dev.store import corrections, eval_runs, eval_suites, ids, test_sets
from kindgi_dev.store.db import Database
from kindgi_dev.store.migrations import MIGRATIONS


def test_runs_that_named_frozen_version_n_name_n_0_0_after_the_upgrade(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    db.run("DELETE FROM schema_migrations WHERE version = 11")
    for run_id, frozen in (("on-set", {"testSetId": "a~p", "version": 2}), ("on-suite", None)):
        db.run(
            "INSERT INTO eval_runs (run_id, tenant_id, project_id, suite_id, suite_version, "
            "kind, status, started_at, frozen_version) VALUES (?, 't', 'p', 'a~p', '2.0.0', "
            "'judged', 'completed', '2026-01-01T00:00:00.000Z', ?)",
            (run_id, None if frozen is None else json.dumps(frozen)),
        )
    db.close()
    again = Database(tmp_path / "dev.sqlite3")
    assert again.migrate() == [11]
    rows = {r["run_id"]: r["frozen_version"] for r in again.all("SELECT * FROM eval_runs")}
    assert json.loads(rows["on-set"]) == {"testSetId": "a~p", "version": "2.0.0"}
    assert rows["on-suite"] is None


def _at_version(path: Path, last: int) -> Database:
    """A database with the migrations up to `last` applied, as an older kindgi dev left it."""
    db = Database(path)
    with db.transaction() as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TEXT NOT NULL)"
        )
        for migration in (m for m in MIGRATIONS if m.version <= last):
            for statement in migration.statements():
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00.000Z')",
                (migration.version, migration.name),
            )
    return db


def _old_correction(db: Database, n: int, run: str, participant: str, **columns: Any) -> str:
    """A correction row as m0004–m0010 shaped it; its id."""
    row = {
        "id": f"c{n}", "tenant_id": "t", "project_id": "p", "run_id": run,
        "subject_kind": "agent", "subject_id": "a", "subject_version": "0.1.0",
        "corrector_kind": "user", "corrector_id": "u", "participant_id": participant,
        "created_at": f"2026-01-01T00:00:{n:02d}.000Z", "updated_at": "2026-01-02T00:00:00.000Z",
        **columns,
    }  # fmt: skip
    db.run(f"INSERT INTO corrections ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
           list(row.values()))  # fmt: skip
    return row["id"]


def _old_verdict(db: Database, n: int, correction: str, key: str, **columns: Any) -> None:
    """A verdict row as m0004 shaped it, with its correction's ids repeated."""
    c = db.one("SELECT * FROM corrections WHERE id = ?", (correction,))
    assert c is not None
    row = {
        "id": str(uuid.UUID(int=n)), "correction_id": correction, "tenant_id": c["tenant_id"],
        "project_id": c["project_id"], "run_id": c["run_id"], "item_key": key,
        "pointer": f"/output/articles/{n % 3}", "rank": n % 3, "verdict": "yes" if n % 2 else "no",
        "asserted_by_kind": c["corrector_kind"], "asserted_by_id": c["corrector_id"],
        "participant_id": c["participant_id"] or None, "item_value": json.dumps({"id": key}),
        "created_at": f"2026-01-01T00:01:{n // 2:02d}.000Z", **columns,
    }  # fmt: skip
    db.run(f"INSERT INTO verdicts ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
           list(row.values()))  # fmt: skip


def _columns(verdict: StoredVerdict | None) -> dict[str, Any]:
    """A verdict the store read, by the names of the columns an older version kept it in."""
    assert verdict is not None
    item, by = verdict.item, verdict.asserted_by
    return {
        "id": verdict.id, "correction_id": verdict.correction_id,
        "tenant_id": verdict.tenant_id, "project_id": verdict.project_id,
        "run_id": verdict.run_id, "item_key": item.key, "pointer": item.pointer,
        "rank": item.rank, "verdict": item.verdict, "reason": item.reason,
        "judge_class_id": verdict.judge_class_id, "restricted": int(verdict.restricted),
        "item_value": verdict.item_value, "created_at": verdict.created_at,
        "unregistered_at": verdict.unregistered_at, "superseded_by": verdict.superseded_by,
        "asserted_by_kind": by.kind, "asserted_by_id": by.id,
        "participant_id": by.participant_id or None, "subject_kind": verdict.subject.kind,
        "subject_id": verdict.subject.id, "subject_version": verdict.subject.version,
    }  # fmt: skip


def _reads(db: Database) -> dict[str, Any]:
    """What the store reads back of corrections, verdicts and the agent's test set."""
    scope = ("a", "p", "t")
    ids = [r["id"] for r in db.all("SELECT id FROM corrections ORDER BY created_at, id")]
    found = corrections.list_verdicts(db, "t", limit=100, after=None, filters={})
    listed = [_columns(v) for v in found]
    return {
        "corrections": [corrections.get_correction(db, i) for i in ids],
        "verdicts": {i: [_columns(v) for v in vs]
                     for i, vs in corrections.verdicts_of(db, ids).items()},
        "one": {v["id"]: _columns(corrections.get_verdict(db, v["id"])) for v in listed},
        "listed": listed,
        "page": [_columns(v) for v in corrections.list_verdicts(
            db, "t", limit=2, after=[listed[2]["created_at"], listed[2]["id"]],
            filters={"run_id": "r1"})],
        "cases": test_sets.correction_cases(db, scope, retired="include", limit=None, after=None),
        "items": test_sets.live_items(db, ids),
        "counts": test_sets.case_counts(db, scope),
        "facts": [_fields(test_sets.correction_facts(db, i)) for i in ids],
        "rescored": [asdict(v) for v in eval_runs.live_verdicts(db, "r1")],
        "judged": [asdict(j) for j in eval_suites.judged_runs(db, "t", "p", ("agent", "a"), [])],
        "counted": [{**asdict(v), "run_id": run_id}
                    for run_id, v in eval_suites.counted_verdicts(db, ["r1", "r2"], [])],
    }  # fmt: skip


def _fields(record: Any) -> dict[str, Any] | None:
    """A read record's fields by name, as the reads compared here were dicts."""
    return None if record is None else asdict(record)


def _old_reads(db: Database) -> dict[str, Any]:
    """The same reads on the old tables, with the old queries, for comparison."""
    ids = [r["id"] for r in db.all("SELECT id FROM corrections ORDER BY created_at, id")]

    def verdict(row: Any) -> dict[str, Any]:
        return {**dict(row), "item_value": json.loads(row["item_value"])}

    rows = db.all("SELECT * FROM verdicts ORDER BY rowid")
    return {
        "verdicts": {i: [verdict(r) for r in rows if r["correction_id"] == i] for i in ids},
        "cases": test_sets.correction_cases(
            db, ("a", "p", "t"), retired="include", limit=None, after=None
        ),
        "counts": test_sets.case_counts(db, ("a", "p", "t")),
    }


def test_corrections_and_verdicts_read_the_same_after_their_ids_are_compacted(
    tmp_path: Path,
) -> None:
    """m0020 moves verdicts onto their correction's integer key and m0021 packs their ids:
    every read of what an older version recorded (items, judgments, pages, the test set and
    its counts) is unchanged."""
    db = _at_version(tmp_path / "dev.sqlite3", 16)
    for run, replay in (("r1", None), ("r2", None), ("r3", "r1")):
        db.run(
            "INSERT INTO runs (id, tenant_id, project_id, flow_id, flow_version, status, "
            "created_at, updated_at, input, replay_of) VALUES (?, 't', 'p', 'agent.turn', "
            "'1.1.0', 'completed', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', "
            "'{}', ?)",
            (run, replay),
        )
    old = _old_correction(db, 1, "r1", "", replaced_by="c2", replaced_at="2026-01-01T00:00:02Z")
    _old_verdict(
        db,
        1,
        old,
        "kb-101",
        unregistered_at="2026-01-01T00:00:02Z",
        superseded_by=str(uuid.UUID(int=3)),
    )
    _old_verdict(db, 2, old, "kb-102", unregistered_at="2026-01-01T00:00:02Z")
    live = _old_correction(db, 2, "r1", "")
    _old_verdict(db, 3, live, "kb-101", reason="first", judge_class_id="jc", restricted=1)
    _old_verdict(db, 4, live, "kb-103")
    decided = json.dumps({"verdict": "wrong", "shouldCall": []})
    other = _old_correction(db, 3, "r1", "p-1", decisions=decided)
    _old_verdict(db, 5, other, "kb-101", unregistered_at="2026-01-01T00:00:09Z")
    retired = _old_correction(db, 4, "r2", "p-2", status="fixed")
    _old_verdict(db, 6, retired, "kb-102")
    db.run(
        "INSERT INTO case_retirements VALUES (?, 't', 'gone', 'user', 'u', '2026-01-03T00:00Z')",
        (retired,),
    )
    on_replay = _old_correction(db, 5, "r3", "", status="open")
    _old_verdict(db, 7, on_replay, "kb-101")
    before = _old_reads(db)
    assert before["counts"] == SetCaseCounts(active=2, retired=1)
    db.close()

    db = Database(tmp_path / "dev.sqlite3")
    assert db.migrate()[:2] == [20, 21]
    assert {type(r["id"]) for r in db.all("SELECT id FROM verdicts")} == {bytes}
    after = _reads(db)
    columns = before["verdicts"]["c1"][0].keys()
    assert {i: [{c: v[c] for c in columns} for v in vs]
            for i, vs in after["verdicts"].items()} == before["verdicts"]  # fmt: skip
    assert [len(v) for v in after["verdicts"].values()] == [2, 2, 1, 1, 1]
    assert after["cases"] == before["cases"]
    assert after["counts"] == before["counts"]
    assert [v["id"] for v in after["listed"]] == [str(uuid.UUID(int=n)) for n in (7, 6, 4, 3)]
    assert [v["id"] for v in after["page"]] == [str(uuid.UUID(int=3))]
    assert after["one"] == {v["id"]: v for v in after["listed"]}
    assert [f["has_expectation"] for f in after["facts"]] == [0, 1, 1, 1, 1]
    assert [(v["item_key"], v["verdict"]) for v in after["rescored"]] == [
        ("kb-101", "yes"), ("kb-103", "no"),
    ]  # fmt: skip
    assert [(j["run_id"], j["judgments"]) for j in after["judged"]] == [("r1", 2), ("r2", 1)]
    assert [v["id"] for v in after["counted"]] == [str(uuid.UUID(int=n)) for n in (6, 4, 3)]

    test_sets.insert_retirement(db, "t", live, "done", {"kind": "user", "id": "u"}, "2026-02-01Z")
    assert test_sets.case_counts(db, ("a", "p", "t")) == SetCaseCounts(active=1, retired=2)
    assert corrections.end_live_verdicts(db, live, "2026-02-02T00:00:00.000Z") == 2
    assert test_sets.case_counts(db, ("a", "p", "t")) == SetCaseCounts(active=1, retired=1)


def test_a_packed_id_reads_back_as_it_was_given() -> None:
    """A canonical UUID keeps 16 bytes; any other spelling stays text, unchanged."""
    given = "0b7c4a1e-3f0d-4e2a-9c1b-5d6e7f8a9b0c"
    assert ids.packed(given) == uuid.UUID(given).bytes
    for other in (given.upper(), given.replace("-", ""), "v-1", ""):
        assert ids.packed(other) == other
    assert [ids.unpacked(ids.packed(i)) for i in (given, "v-1")] == [given, "v-1"]
