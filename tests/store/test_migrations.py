"""Migrations that rewrite stored rows keep what a user recorded readable."""

from __future__ import annotations

import json
from pathlib import Path

from kindgi_dev.store.db import Database


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
