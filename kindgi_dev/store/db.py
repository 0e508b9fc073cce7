"""The SQLite file: connection settings, transactions and the migration runner.

One writing connection, shared by the event loop and worker threads behind a lock, so
there is one writer at a time; every write runs in `BEGIN IMMEDIATE … COMMIT`, so a
reader never sees half of a change. Reads outside a transaction use a connection of
their thread's own, so they never wait for a write in flight (WAL lets them read the
last committed state meanwhile), as Datasette does.

With WAL and `synchronous=NORMAL` an acknowledged write survives the process being
killed; a power loss may take the last writes back (never leaving the file corrupt),
the trade SQLite documents for WAL mode.

The folder is 0700 and the files (`-wal` and `-shm` too) 0600: the API token is inside.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..domain.errors import KindgiError
from ..domain.time import now_iso
from .ids import packed
from .migrations import MIGRATIONS

Params = Sequence[Any] | dict[str, Any]
Row = sqlite3.Row
"""A row as the store hands it out: read by column name."""
CACHE_KIB = 16 * 1024
"""SQLite's page cache: 16 MB holds the indexes of 100,000 corrections (the default, 2 MB,
does not), and stays small beside a laptop's memory and the idle-memory target."""
SCAN_CACHE_KIB = 1024
"""A scan's page cache: it reads each page once, in order."""


class DatabaseTooNew(KindgiError):
    """This database was written by a newer kindgi dev; upgrade kindgi dev or start with --reset."""

    code = "database-too-new"


class DatabaseUnreadable(KindgiError):
    """The database file is damaged or is not a kindgi dev database."""

    code = "database-unreadable"


class DiskFull(KindgiError):
    """The disk holding the database is full: nothing was saved."""

    status = 507
    code = "insufficient-storage"


class StorageFailed(KindgiError):
    """The database could not be read or written (an I/O error): nothing was saved."""

    status = 503
    code = "storage-unavailable"


_CORRUPT = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_UNAVAILABLE = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN}


def unreadable(path: str, why: str) -> DatabaseUnreadable:
    """The one-paragraph refusal of a database file, with what to do about it."""
    return DatabaseUnreadable(
        f"{path} can't be read: {why}. Start with --reset --yes for a new database "
        f"(and a new token), or move the file away first to keep it: mv {path} {path}.broken"
    )


def storage_error(path: str, error: sqlite3.Error) -> KindgiError | None:
    """What SQLite's error means to the user, when it is the file's or the disk's fault:
    damaged (say how to start over), disk full (507) or an I/O failure (503); else None."""
    primary = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if primary in _CORRUPT:
        return unreadable(path, str(error))
    if primary == sqlite3.SQLITE_FULL:
        return DiskFull(
            f"The disk holding {path} is full: nothing was saved. Free some space and "
            "try again; kindgi dev goes on once there is room.",
            database=path,
        )
    if primary in _UNAVAILABLE:
        return StorageFailed(
            f"kindgi dev could not read or write {path} ({error}): nothing was saved. "
            "Check the disk and the file's permissions, then try again.",
            database=path,
        )
    return None


@contextmanager
def readable(path: str) -> Iterator[None]:
    """Turn the file's and the disk's failures into errors that say what happened and what
    to do (see `storage_error`); any other SQLite error is ours, and raised as it is."""
    try:
        yield
    except sqlite3.Error as error:
        meant = storage_error(path, error)
        if meant is None:
            raise
        raise meant from None


def prepare_files(path: Path) -> None:
    """Before the first connection: the folder made 0700, a new database file made 0600 (SQLite
    gives its `-wal` and `-shm` the database's mode), and older files tightened by path.

    Only ever before a connection opens the file, and never through a descriptor of an
    existing file: closing any descriptor of the database drops every POSIX lock the process
    holds on it, and another process's reader then deletes the live WAL (SQLite's "How To
    Corrupt An SQLite Database File", 2.2). A zero-length file or a folder in the database's
    place is refused, not silently replaced with a new database and a new token.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        found = os.stat(path)
    except FileNotFoundError:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        return
    if stat.S_ISDIR(found.st_mode):
        raise unreadable(str(path), "it is a folder, not a database file")
    if found.st_size == 0:
        raise unreadable(str(path), "the file is empty (0 bytes), not a kindgi dev database")
    for suffix in ("", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.chmod(f"{path}{suffix}", 0o600)


class Database:
    """The store's one connection to `.kindgi/dev.sqlite3` (or `:memory:` in tests)."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            prepare_files(Path(self.path))
        self._lock = threading.RLock()
        with readable(self.path):
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
        self._conn.row_factory = sqlite3.Row
        self._conn.create_function("packed_id", 1, packed, deterministic=True)
        with readable(self.path):
            self._conn.execute("SELECT count(*) FROM sqlite_master")  # a damaged schema: now
            for pragma in (
                "journal_mode=WAL",
                "synchronous=NORMAL",
                "foreign_keys=ON",
                "busy_timeout=10000",
                f"cache_size=-{CACHE_KIB}",
            ):
                self._conn.execute(f"PRAGMA {pragma}")
        self._depth = 0
        self._writing: int | None = None
        self._after_commit: list[Callable[[], object]] = []
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._trace: Callable[[str], object] | None = None

    def migrate(self) -> list[int]:
        """Apply every migration not applied yet; refuse a database from a newer version."""
        with readable(self.path), self.transaction():
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {row[0] for row in self._conn.execute("SELECT version FROM schema_migrations")}
            known = {m.version for m in MIGRATIONS}
            newer = sorted(done - known)
            if newer and newer[-1] > max(known, default=0):
                raise DatabaseTooNew(
                    f"{self.path} has schema version {newer[-1]}, newer than this kindgi dev "
                    f"knows ({max(known, default=0)}). Upgrade kindgi dev, or start with --reset."
                )
            applied = []
            for migration in MIGRATIONS:
                if migration.version in done:
                    continue
                for statement in migration.statements():
                    self._conn.execute(statement)
                if migration.rewrite is not None:
                    migration.rewrite(self._conn)
                self._conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, now_iso()),
                )
                applied.append(migration.version)
        return applied

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed when the block ends, rolled back if it raises.
        A transaction opened inside another is part of it: the outermost one commits."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            with readable(self.path):
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            self._writing = threading.get_ident()
            try:
                with readable(self.path):
                    try:
                        yield self._conn
                    except BaseException:
                        if self._conn.in_transaction:  # a failed write may have ended it
                            self._conn.execute("ROLLBACK")
                        raise
                    self._conn.execute("COMMIT")
            finally:
                if self._conn.in_transaction:  # COMMIT failed (disk full): nothing kept
                    with suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                self._depth = 0
                self._writing = None
                committed, self._after_commit = self._after_commit, []
        for callback in committed:
            callback()

    def after_commit(self, callback: Callable[[], object]) -> None:
        """Call `callback` once this thread's write transaction commits (at once when it has
        none in flight), never if it rolls back: for work handed to another thread, which
        reads on a connection of its own and sees only what is committed."""
        if self._writing != threading.get_ident():
            callback()
            return
        self._after_commit.append(callback)

    @contextmanager
    def writer_if_free(self) -> Iterator[bool]:
        """Hold the writer's lock if no other thread holds it; yields whether it is held.

        A short write can then run on the caller's thread at once; while another write is
        in flight it is never waited for here (the caller hands its write to a thread).
        """
        free = self._lock.acquire(blocking=False)
        try:
            yield free
        finally:
            if free:
                self._lock.release()

    def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Every row a query returns."""
        reader = self._reader()
        if reader is not None:
            with readable(self.path):
                return reader.execute(sql, params).fetchall()
        with self._lock, readable(self.path):
            return self._conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row a query returns, or None."""
        reader = self._reader()
        if reader is not None:
            with readable(self.path):
                found: sqlite3.Row | None = reader.execute(sql, params).fetchone()
            return found
        with self._lock, readable(self.path):
            row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
        return row

    def _reader(self) -> sqlite3.Connection | None:
        """This thread's read-only connection; None inside its own write (which must see
        what it wrote so far) and for `:memory:` (another connection is another database)."""
        if self.path == ":memory:" or self._writing == threading.get_ident():
            return None
        reader: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if reader is None:
            reader = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
            reader.row_factory = sqlite3.Row
            for pragma in ("query_only=ON", "busy_timeout=10000", f"cache_size=-{CACHE_KIB}"):
                reader.execute(f"PRAGMA {pragma}")
            reader.set_trace_callback(self._trace)
            self._local.reader = reader
            with self._readers_lock:  # not the writer's lock: a write may hold that one long
                self._readers.append(reader)
        return reader

    @contextmanager
    def scanning(self) -> Iterator[Callable[[str, Params], list[sqlite3.Row]]]:
        """Reads on a connection of their own, closed afterwards: for a walk through many
        pages (a large eval run's cases), which would otherwise leave them cached in the
        reader of each thread that took a step of it."""
        if self.path == ":memory:" or self._writing == threading.get_ident():
            yield self.all
            return
        scan = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        scan.row_factory = sqlite3.Row
        for pragma in ("query_only=ON", "busy_timeout=10000", f"cache_size=-{SCAN_CACHE_KIB}"):
            scan.execute(f"PRAGMA {pragma}")
        scan.set_trace_callback(self._trace)

        def read(sql: str, params: Params = ()) -> list[sqlite3.Row]:
            with readable(self.path):
                return scan.execute(sql, params).fetchall()

        try:
            yield read
        finally:
            scan.close()

    def run(self, sql: str, params: Params = ()) -> int:
        """Execute one write statement in its own transaction (or the open one); rows changed."""
        with readable(self.path), self.transaction() as conn:
            return conn.execute(sql, params).rowcount

    def release_memory(self) -> None:
        """Free every connection's page cache (each fills again as pages are read), after a
        large job: the readers of the threads that did it hold as much as the writer.
        SQLite here is serialized (`sqlite3.threadsafety == 3`), so another thread's reader
        may be shrunk while it reads."""
        with self._lock:
            self._conn.execute("PRAGMA shrink_memory")
        with self._readers_lock:
            for reader in self._readers:
                reader.execute("PRAGMA shrink_memory")

    def trace(self, callback: Callable[[str], object] | None) -> None:
        """Send every statement any of its connections runs to `callback` (None: stop)."""
        with self._readers_lock:
            self._trace = callback
            for connection in (self._conn, *self._readers):
                connection.set_trace_callback(callback)

    def close(self) -> None:
        """Close the readers, checkpoint the WAL and close the writing connection."""
        with self._lock, self._readers_lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
            with suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
