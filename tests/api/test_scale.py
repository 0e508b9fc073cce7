"""Costs that must not grow with the database: query plans of the hot paths, and polls.

These check the mechanisms (an index is used, a poll reads no case rows); how fast
they are is measured in benchmarks/, not here.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from factories import AGENT, served, tutorial_runs
from test_eval_runs import build_suite, correct_tutorial, finish, models_file, start_version

from kindgi_dev.domain.time import now_iso
from kindgi_dev.services.context import Context
from kindgi_dev.store import eval_runs as eval_store

GROWING = (
    "runs", "run_journal", "run_tool_calls", "conversations", "conversation_messages",
    "corrections", "verdicts", "judged_run_copies", "hand_cases", "case_retirements",
    "eval_runs", "eval_run_cases", "eval_suite_cases", "test_set_version_cases",
    "idempotency_keys",
)  # fmt: skip
"""Tables that grow with use; a hot query must search them, never scan them."""
LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b")


@contextmanager
def traced(ctx: Context) -> Iterator[list[str]]:
    """Every SQL statement the store runs inside the block, with its values filled in."""
    statements: list[str] = []
    connection: sqlite3.Connection = ctx.db._conn
    connection.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        connection.set_trace_callback(None)


def scans(ctx: Context, statements: list[str]) -> dict[str, list[str]]:
    """The statements whose plan scans a growing table (one of each shape), with those steps."""
    found: dict[str, list[str]] = {}
    shapes: set[str] = set()
    for sql in statements:
        shape = LITERAL.sub("?", sql)
        if shape in shapes or not sql.lstrip().upper().startswith(
            ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
        ):
            continue
        shapes.add(shape)
        plan = ctx.db.all(f"EXPLAIN QUERY PLAN {sql}")
        bad = [
            step["detail"]
            for step in plan
            if re.match(rf"SCAN ({'|'.join(GROWING)})\b", step["detail"])
        ]
        if bad:
            found[shape] = bad
    return found


def test_hot_paths_search_growing_tables_and_never_scan_them(tmp_path: Path) -> None:
    """Live runs, corrections, test-set reads and an eval run with its polls: every query's
    plan searches an index (a conversation's turns used to scan every run)."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        with traced(ctx) as statements:
            runs = tutorial_runs(ctx)
            live = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "hi"}})
            assert live.status_code == 201, live.text
            follow_up = {"agent": AGENT, "input": {
                "userMessage": "and then?", "conversationId": live.json()["agent"]["conversationId"]
            }}  # fmt: skip
            assert client.post("/v1/runs", json=follow_up).status_code == 201
            correct_tutorial(client, runs)
            correct_tutorial(client, runs)
            project = client.get("/v1/projects/default").json()["id"]
            assert client.get(f"/v1/agents/{AGENT}/test-set").json()["cases"]["active"] == 3
            assert len(client.get(f"/v1/agents/{AGENT}/test-set/cases").json()["data"]) == 3
            build_suite(client, "acme.one", project)
            started = start_version(client, "/v1/eval-suites/acme.one/runs", project)
            assert finish(client, started.json()["runId"])["status"] == "completed"
        assert len(statements) > 100
        assert scans(ctx, statements) == {}


def test_the_plan_check_sees_a_scan_of_a_growing_table(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        with traced(ctx) as statements:
            ctx.db.all("SELECT id FROM runs WHERE input = ?", ("{}",))
            ctx.db.all("SELECT id FROM runs WHERE id = ?", ("x",))
        assert scans(ctx, statements) == {"SELECT id FROM runs WHERE input = ?": ["SCAN runs"]}


def _running_eval_run(ctx: Context, cases: int, done: int) -> str:
    """A stored `running` eval run of `cases` cases, `done` of them finished."""
    run_id = f"eval-{cases}-{done}"
    eval_store.insert(ctx.db, {
        "run_id": run_id, "tenant_id": ctx.tenant_id, "project_id": "p", "suite_id": "s",
        "suite_version": "1.0.0", "kind": "judged", "status": "running",
        "started_at": now_iso(), "case_count": cases,
    })  # fmt: skip
    for index in range(done):
        eval_store.add_case(ctx.db, run_id, index, f"case-{index}", {"entry": {}}, now_iso())
    eval_store.add_case(ctx.db, run_id, 0, "case-0", {"entry": {"again": True}}, now_iso())
    return run_id


def test_a_poll_of_a_running_eval_run_counts_progress_without_reading_cases(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (client, ctx):
        run_id = _running_eval_run(ctx, cases=5, done=3)
        with traced(ctx) as statements:
            polled = client.get(f"/v1/eval-runs/{run_id}")
    assert polled.status_code == 200
    assert polled.json()["progress"] == {"casesDone": 3, "cases": 5}
    assert statements, "the poll read the eval run"
    assert [sql for sql in statements if "eval_run_cases" in sql] == []
