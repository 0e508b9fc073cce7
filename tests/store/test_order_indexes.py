"""The order indexes every replay adds to are ascending (a descending one left half of each
page empty, #29 point 1), and a list newest first still walks them: no sort of its own."""

from __future__ import annotations

import pytest

from kindgi_dev.store.db import Database

LISTS = {
    "runs": (
        "SELECT id FROM runs WHERE tenant_id = 't' AND replay_of IS NULL "
        "ORDER BY created_at DESC, id DESC LIMIT 26",
        ["SCAN runs USING INDEX runs_order"],
    ),
    "runs after a cursor": (
        "SELECT id FROM runs WHERE tenant_id = 't' AND replay_of IS NULL "
        "AND (created_at, id) < ('2026', 'r') ORDER BY created_at DESC, id DESC LIMIT 26",
        ["SEARCH runs USING INDEX runs_order ((created_at,id)<(?,?))"],
    ),
    "an agent's runs": (
        "SELECT id FROM runs WHERE tenant_id = 't' AND agent_id = 'a' AND replay_of IS NULL "
        "ORDER BY created_at DESC, id DESC LIMIT 26",
        # the index never held the id: its right part is sorted, as when it was descending
        [
            "SEARCH runs USING INDEX runs_agent (agent_id=?)",
            "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY",
        ],
    ),
    "conversations": (
        "SELECT id FROM conversations WHERE tenant_id = 't' AND unregistered_at IS NULL "
        "AND replay = 0 ORDER BY opened_at DESC, id DESC LIMIT 26",
        ["SCAN conversations USING INDEX conversations_order"],
    ),
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Database:
    found = Database(tmp_path_factory.mktemp("db") / "dev.sqlite3")
    found.migrate()
    return found


@pytest.mark.parametrize("name", ["runs_order", "runs_agent", "conversations_order"])
def test_the_order_indexes_are_ascending(db: Database, name: str) -> None:
    row = db.one("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", (name,))
    assert row is not None and " DESC" not in row["sql"]


@pytest.mark.parametrize("name", list(LISTS))
def test_a_list_newest_first_walks_its_index(db: Database, name: str) -> None:
    sql, plan = LISTS[name]
    assert [step["detail"] for step in db.all(f"EXPLAIN QUERY PLAN {sql}")] == plan
