"""Issue 29 point 2: concurrent write transactions share one COMMIT (group commit), each
in a SAVEPOINT of its own, and each caller returns only once that COMMIT is done."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from kindgi_dev.store.db import Database

WRITERS = 8


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    made = Database(tmp_path / "dev.sqlite3")
    made.run("CREATE TABLE notes (body TEXT NOT NULL)")
    made.run("CREATE TABLE parents (id INTEGER PRIMARY KEY)")
    made.run(
        "CREATE TABLE children (parent INTEGER REFERENCES parents (id) "
        "DEFERRABLE INITIALLY DEFERRED)"
    )
    yield made
    made.close()


def committed_notes(path: str) -> list[str]:
    """The notes another connection sees: only what is committed."""
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return sorted(row[0] for row in reader.execute("SELECT body FROM notes"))
    finally:
        reader.close()


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the writers never queued"
        time.sleep(0.001)


def counting_commits(db: Database) -> list[str]:
    statements: list[str] = []
    db.trace(statements.append)
    return statements


def write(db: Database, body: str, inside: Callable[[], object] = lambda: None) -> str:
    with db.transaction() as conn:
        conn.execute("INSERT INTO notes VALUES (?)", (body,))
        inside()
    return body


def hold_until_queued(db: Database, count: int) -> Callable[[], None]:
    """A write's inside that keeps the writer's lock until `count` writers wait behind it."""
    return lambda: wait_for(lambda: db.writers_waiting() >= count)


def test_writers_at_once_share_fewer_commits_than_they_are(db: Database) -> None:
    statements = counting_commits(db)
    with ThreadPoolExecutor(WRITERS) as pool:
        first = pool.submit(write, db, "n0", hold_until_queued(db, WRITERS - 1))
        rest = [pool.submit(write, db, f"n{i}") for i in range(1, WRITERS)]
        written = [first.result(30), *(f.result(30) for f in rest)]
    commits = statements.count("COMMIT")
    assert 1 <= commits < WRITERS
    assert statements.count("BEGIN IMMEDIATE") == commits
    assert sorted(written) == committed_notes(db.path) == sorted(f"n{i}" for i in range(WRITERS))


def test_a_member_that_raises_rolls_back_alone_and_its_caller_gets_the_error(
    db: Database,
) -> None:
    statements = counting_commits(db)

    def refuse() -> None:
        raise ValueError("refused")

    with ThreadPoolExecutor(WRITERS) as pool:
        first = pool.submit(write, db, "n0", hold_until_queued(db, WRITERS - 1))
        rest = [pool.submit(write, db, f"n{i}", refuse if i == 3 else lambda: None)
                for i in range(1, WRITERS)]  # fmt: skip
        first.result(30)
        outcomes = [f.exception(30) for f in rest]
    assert [type(error) for error in outcomes].count(ValueError) == 1
    assert isinstance(outcomes[2], ValueError) and str(outcomes[2]) == "refused"
    assert statements.count("COMMIT") < WRITERS
    assert committed_notes(db.path) == sorted(f"n{i}" for i in range(WRITERS) if i != 3)


def test_no_writer_returns_before_the_shared_commit_and_callbacks_run_after_it(
    db: Database,
) -> None:
    inside_first, inside_second, release = threading.Event(), threading.Event(), threading.Event()
    seen_by_callback: list[list[str]] = []

    def first_inside() -> None:
        db.after_commit(lambda: seen_by_callback.append(committed_notes(db.path)))
        inside_first.set()
        hold_until_queued(db, 1)()

    def second_inside() -> None:
        inside_second.set()
        assert release.wait(30)

    with ThreadPoolExecutor(2) as pool:
        first: Future[str] = pool.submit(write, db, "first", first_inside)
        assert inside_first.wait(30)
        second = pool.submit(write, db, "second", second_inside)
        assert inside_second.wait(30)
        # the first write's block has ended, but its group is still open with the second's
        time.sleep(0.05)
        early = (first.done(), committed_notes(db.path), list(seen_by_callback))
        release.set()
        assert (first.result(30), second.result(30)) == ("first", "second")
    assert early == (False, [], [])
    assert seen_by_callback == [["first", "second"]]
    assert committed_notes(db.path) == ["first", "second"]


def test_an_error_of_the_shared_commit_reaches_every_member_and_keeps_nothing(
    db: Database,
) -> None:
    def orphan(conn: sqlite3.Connection) -> Callable[[], None]:
        """A child of no parent: its deferred key check fails only at COMMIT."""
        return lambda: conn.execute("INSERT INTO children VALUES (42)") and None

    inside = threading.Event()

    def first() -> str:
        with db.transaction() as conn:
            conn.execute("INSERT INTO notes VALUES ('first')")
            orphan(conn)()
            inside.set()
            hold_until_queued(db, 1)()
        return "first"

    with ThreadPoolExecutor(2) as pool:
        failed_first = pool.submit(first)
        assert inside.wait(30)
        failed_second = pool.submit(write, db, "second")
        errors = [failed_first.exception(30), failed_second.exception(30)]
    assert all(isinstance(e, sqlite3.IntegrityError) for e in errors), errors
    assert committed_notes(db.path) == []
    assert db.all("SELECT * FROM children") == []
    assert write(db, "after") == "after" and committed_notes(db.path) == ["after"]


def test_writes_on_the_event_loop_share_the_commit_it_runs_after_its_other_work(
    db: Database,
) -> None:
    """The API's short writes run on the loop and leave their COMMIT to it: the requests
    handled in the same turn share it, and none answers before it."""
    statements = counting_commits(db)
    seen_before_commit: list[list[str]] = []
    called_back: list[str] = []

    async def post(body: str) -> str:
        with db.writer_if_free() as free, db.leaving_commits() as pending:
            assert free
            write(db, body, lambda: db.after_commit(lambda: called_back.append(body)))
        seen_before_commit.append(committed_notes(db.path))
        await pending.committed()
        return body

    async def posts() -> list[str]:
        return list(await asyncio.gather(*(post(f"n{i}") for i in range(WRITERS))))

    assert asyncio.run(posts()) == [f"n{i}" for i in range(WRITERS)]
    assert seen_before_commit == [[]] * WRITERS and called_back == [f"n{i}" for i in range(WRITERS)]
    assert statements.count("COMMIT") == 1
    assert committed_notes(db.path) == sorted(f"n{i}" for i in range(WRITERS))


def test_a_long_write_from_a_thread_commits_the_loops_short_ones_before_its_own(
    db: Database,
) -> None:
    """A short write left to the loop's commit is never held up by a long write that takes
    the writer meanwhile: that one commits the loop's group before starting its own."""
    inside, release = threading.Event(), threading.Event()

    async def short_then_long() -> tuple[list[str], list[str], bool]:
        with db.writer_if_free(), db.leaving_commits() as pending:
            write(db, "short")
        long_write = asyncio.create_task(asyncio.to_thread(
            write, db, "long", lambda: (inside.set(), release.wait(30))))  # fmt: skip
        await asyncio.to_thread(inside.wait, 30)
        seen_while_long = committed_notes(db.path)
        await asyncio.wait_for(pending.committed(), 10)
        seen_after_ack = committed_notes(db.path)
        still_writing = not long_write.done()
        release.set()
        await long_write
        return seen_while_long, seen_after_ack, still_writing

    assert asyncio.run(short_then_long()) == (["short"], ["short"], True)
    assert committed_notes(db.path) == ["long", "short"]
