"""Issue 22: the database file keeps its locks while open, and the disk's failures say so."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kindgi_dev.store.db import Database
from kindgi_dev.store.files import DatabaseUnreadable, DiskFull

READ = (
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
    "print(c.execute('select count(*) from notes').fetchone()[0]); c.close()"
)


def count_from_another_process(path: Path) -> int:
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True,
                          text=True, check=True, timeout=30)  # fmt: skip
    return int(done.stdout)


def test_another_process_reading_an_open_database_keeps_its_wal(tmp_path: Path) -> None:
    path = tmp_path / "dev.sqlite3"
    made = Database(path)
    made.run("CREATE TABLE notes (body TEXT)")
    made.close()
    db = Database(path)  # an existing file: opened as every restart opens it
    try:
        for n in range(1, 4):
            db.run("INSERT INTO notes VALUES (?)", (f"note {n}",))
            assert count_from_another_process(path) == n
            assert Path(f"{path}-wal").exists(), "another process's reader deleted the live WAL"
    finally:
        db.close()


@pytest.mark.parametrize("kind", ["empty", "folder"])
def test_an_empty_file_or_a_folder_is_refused_not_replaced(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "dev.sqlite3"
    if kind == "empty":
        path.write_bytes(b"")
    else:
        path.mkdir()
    with pytest.raises(DatabaseUnreadable, match=r"can't be read: .*--reset --yes"):
        Database(path)
    assert (path.read_bytes() == b"") if kind == "empty" else path.is_dir()


def test_a_full_disk_is_507_keeps_nothing_and_writes_again_once_there_is_room(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.run("CREATE TABLE notes (body TEXT)")
    pages = db.one("PRAGMA page_count")
    assert pages is not None
    with db.transaction() as conn:  # the disk as SQLite sees a full one: no page beyond these
        conn.execute(f"PRAGMA max_page_count = {pages[0] + 2}")
    with pytest.raises(DiskFull) as refused, db.transaction() as conn:
        conn.execute("INSERT INTO notes VALUES ('kept')")
        conn.execute("INSERT INTO notes VALUES (?)", ("x" * 100_000,))
    assert refused.value.status == 507 and refused.value.wire_code == "insufficient-storage"
    assert str(tmp_path / "dev.sqlite3") in refused.value.message
    assert db.all("SELECT body FROM notes") == []
    with db.transaction() as conn:
        conn.execute("PRAGMA max_page_count = 1073741823")
    db.run("INSERT INTO notes VALUES ('after')")
    assert [row[0] for row in db.all("SELECT body FROM notes")] == ["after"]
    db.close()


def test_a_full_disk_is_507_to_every_member_of_the_group_it_ended(tmp_path: Path) -> None:
    """Two writers share a group; the second fills the disk, which ends the transaction: the
    first, which did nothing wrong, hears the same 507, not an internal error."""
    db = Database(tmp_path / "dev.sqlite3")
    db.run("CREATE TABLE notes (body TEXT NOT NULL)")

    def first() -> None:
        with db.transaction() as conn:
            conn.execute("INSERT INTO notes VALUES ('first')")
            while db.writers_waiting() < 1:  # the second waits to join: the group stays open
                time.sleep(0.001)

    def second() -> None:
        with db.transaction() as conn:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
            conn.execute("INSERT INTO notes VALUES (?)", ("x" * 100_000,))

    with ThreadPoolExecutor(2) as pool:
        joined = pool.submit(first)
        time.sleep(0.05)
        filled = pool.submit(second)
        errors = [joined.exception(10), filled.exception(10)]
    assert [type(error) for error in errors] == [DiskFull, DiskFull]
    assert all(isinstance(e, DiskFull) and e.status == 507 for e in errors)
    assert db.all("SELECT body FROM notes") == []
    db.close()
