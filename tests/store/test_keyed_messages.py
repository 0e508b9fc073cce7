"""m0048: a conversation's messages in their key's own b-tree, an eval replay's messages
without a time when it is their run's end, and an eval replay's run out of
`runs_replay_of` (#29 point 1), converted on a database from before, every row kept and
read the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kindgi_dev.store import conversations
from kindgi_dev.store.db import Database
from kindgi_dev.store.migrations import MIGRATIONS

AT = "2026-01-01T00:00:00.000Z"
LATER = "2026-01-01T00:00:01.000Z"


def _before_m0048(path: Path) -> Database:
    """A database with every migration before m0048 applied, as an older kindgi dev left it."""
    db = Database(path)
    with db.transaction() as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TEXT NOT NULL)"
        )
        for migration in (m for m in MIGRATIONS if m.version < 48):
            for statement in migration.statements():
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                (migration.version, migration.name, AT),
            )
    return db


def _run(db: Database, run_id: str, replay_of: str | None, eval_run_id: str | None) -> None:
    """A run; an eval run's replay in its own conversation, `c2`, ended `AT`."""
    db.run(
        "INSERT INTO runs (id, tenant_id, project_id, flow_id, flow_version, status, "
        "created_at, updated_at, completed_at, input, conversation_id, replay_of, eval_run_id) "
        "VALUES (?, 't', 'p', 'agent.turn', '1.1.0', 'completed', ?, ?, ?, '{}', ?, ?, ?)",
        (run_id, AT, AT, AT, "c2" if eval_run_id else "c1", replay_of, eval_run_id),
    )


def _seeded(path: Path) -> Database:
    db = _before_m0048(path)
    db.run(
        "INSERT INTO conversations (id, tenant_id, project_id, agent_id, agent_version, "
        "title, opened_at) VALUES ('c1', 't', 'p', 'a', '0.1.0', 'hi', ?)",
        (AT,),
    )
    for sequence, role, content in (
        (0, "user", '"hi"'),
        (1, "agent", '"hello"'),
        (2, "user", None),
    ):
        db.run(
            "INSERT INTO conversation_messages (conversation_id, sequence, role, content, "
            "actor, run_id, created_at) VALUES ('c1', ?, ?, ?, 'u', 'r1', ?)",
            (sequence, role, content, AT),
        )
    db.run(
        "INSERT INTO conversations (id, tenant_id, project_id, agent_id, agent_version, "
        "title, opened_at, turn_count, last_message_at, replay) "
        "VALUES ('c2', 't', 'p', 'a', '0.1.0', 'hi', ?, 1, ?, 1)",
        (AT, AT),
    )
    for sequence, at in ((0, AT), (1, AT), (2, LATER)):  # a replay's turn, and one after
        db.run(
            "INSERT INTO conversation_messages (conversation_id, sequence, role, content, "
            "created_at) VALUES ('c2', ?, 'user', '\"hi\"', ?)",
            (sequence, at),
        )
    _run(db, "r1", None, None)
    _run(db, "r2", "r1", None)  # a replay asked for by hand
    _run(db, "r3", "r1", "e1")  # an eval run's replay
    return db


def _rows(db: Database) -> dict[str, list[tuple[object, ...]]]:
    names = [r["name"] for r in db.all("SELECT name FROM sqlite_schema WHERE type = 'table'")]
    return {
        name: sorted(tuple(r) for r in db.all(f'SELECT * FROM "{name}"'))
        for name in names
        if name != "schema_migrations"
    }


def test_m0048_keeps_every_row_and_each_message_in_one_b_tree(tmp_path: Path) -> None:
    db = _seeded(tmp_path / "dev.sqlite3")
    before = _rows(db)
    read = [conversations.messages(db, c) for c in ("c1", "c2")]
    assert len(db.all("SELECT rowid FROM conversation_messages")) == 6  # a rowid table
    db.close()
    again = Database(tmp_path / "dev.sqlite3")
    assert again.migrate()[0] == 48  # and those after it
    after = _rows(again)
    kept = [(*m[:7], AT if m[0] == "c2" and m[7] is None else m[7])
            for m in after["conversation_messages"]]  # fmt: skip
    assert {**after, "conversation_messages": kept} == before
    assert [m[1] for m in after["conversation_messages"] if m[7] is None] == [0, 1]
    assert all(m[0] == "c2" for m in after["conversation_messages"] if m[7] is None)
    assert [conversations.messages(again, c) for c in ("c1", "c2")] == read
    assert [m.created_at for m in read[1]] == [AT, AT, LATER]
    with pytest.raises(sqlite3.OperationalError, match="no such column: rowid"):
        again.all("SELECT rowid FROM conversation_messages")
    assert again.all("PRAGMA foreign_key_check") == []
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):  # still points at its own
        again.run(
            "INSERT INTO conversation_messages (conversation_id, sequence, role, created_at) "
            "VALUES ('nowhere', 0, 'user', ?)",
            (AT,),
        )
    assert [dict(r) for r in again.all(
        "SELECT sequence, role, content FROM conversation_messages WHERE conversation_id = 'c1' "
        "AND sequence > 0 ORDER BY sequence"
    )] == [{"sequence": 1, "role": "agent", "content": '"hello"'},
           {"sequence": 2, "role": "user", "content": None}]  # fmt: skip


def test_runs_replay_of_holds_only_the_replays_no_eval_run_made(tmp_path: Path) -> None:
    db = _seeded(tmp_path / "dev.sqlite3")
    db.close()
    again = Database(tmp_path / "dev.sqlite3")
    again.migrate()
    held = again.all(
        "SELECT sum(ncell) AS n FROM dbstat WHERE name = 'runs_replay_of' AND pagetype = 'leaf'"
    )
    assert held[0]["n"] == 1  # r2 only: r3 was an eval run's


def test_a_conversation_s_messages_are_read_by_their_key(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    for sql in (
        "SELECT sequence FROM conversation_messages WHERE conversation_id = ? AND sequence > ? "
        "ORDER BY sequence LIMIT ?",
        "SELECT coalesce(max(sequence), -1) FROM conversation_messages WHERE conversation_id = ?",
        "UPDATE conversation_messages SET content = NULL WHERE conversation_id IN (?, ?)",
    ):
        steps = [s["detail"] for s in db.all(f"EXPLAIN QUERY PLAN {sql}", [1] * sql.count("?"))]
        assert len(steps) == 1 and steps[0].startswith(
            "SEARCH conversation_messages USING PRIMARY KEY (conversation_id=?"
        ), steps
