"""The SQLite file: connection settings, transactions and the migration runner.

One writing connection, shared by the event loop and worker threads behind a lock, so
there is one writer at a time; every write runs in `BEGIN IMMEDIATE … COMMIT`, shared by
the writes that wait for the lock meanwhile (group commit, `transaction`), so a reader
never sees half of a change. Reads outside a transaction use a connection of
their thread's own, so they never wait for a write in flight (WAL lets them read the
last committed state meanwhile), as Datasette does.

With WAL and `synchronous=NORMAL` an acknowledged write survives the process being
killed; a power loss may take the last writes back (never leaving the file corrupt),
the trade SQLite documents for WAL mode.

The folder is 0700 and the files (`-wal` and `-shm` too) 0600: the API token is inside
(`store.files`).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path

from ..domain.errors import KindgiError
from ..domain.time import now_iso
from .commits import CommitGroup, Pending
from .files import Readable, prepare_files, storage_error
from .ids import packed
from .migrations import MIGRATIONS

Params = Sequence[object] | Mapping[str, object]
"""A statement's parameters: by place, or by name."""
Row = sqlite3.Row
"""A row as the store hands it out: read by column name."""
Read = Callable[[str, Params], list[Row]]
"""A read on a connection of its own (`Database.scanning`'s)."""
CACHE_KIB = 16 * 1024
"""SQLite's page cache: 16 MB holds the indexes of 100,000 corrections (the default, 2 MB,
does not), and stays small beside a laptop's memory and the idle-memory target."""
SCAN_CACHE_KIB = 1024
"""A scan's page cache: it reads each page once, in order."""


class DatabaseTooNew(KindgiError):
    """This database was written by a newer kindgi dev; upgrade kindgi dev or start with --reset."""

    code = "database-too-new"


def _sqlite_error_of(error: BaseException) -> sqlite3.Error | None:
    """The SQLite error behind `error`: itself, or the one `Readable` turned into what it
    means to the user (a full disk), so every member of the group hears the same."""
    if isinstance(error, sqlite3.Error):
        return error
    behind = error.__context__
    return behind if isinstance(behind, sqlite3.Error) else None


class Database:
    """The store's one connection to `.kindgi/dev.sqlite3` (or `:memory:` in tests)."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._readable = Readable(self.path)
        if self.path != ":memory:":
            prepare_files(Path(self.path))
        self._lock = threading.RLock()
        with self._readable:
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
        self._conn.row_factory = sqlite3.Row
        self._conn.create_function("packed_id", 1, packed, deterministic=True)
        with self._readable:
            self._conn.execute("SELECT count(*) FROM sqlite_master")  # a damaged schema: now
            for pragma in (
                "journal_mode=WAL",
                "synchronous=NORMAL",
                "foreign_keys=ON",
                "busy_timeout=10000",
                f"cache_size=-{CACHE_KIB}",
            ):
                self._conn.execute(f"PRAGMA {pragma}")
        self._writing: int | None = None
        self._after_commit: list[Callable[[], object]] = []
        self._group: CommitGroup | None = None
        self._queued = 0
        """Threads waiting for the writer's lock to write: the open group waits for them."""
        self._count = threading.Lock()
        self._pending: Pending | None = None
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._trace: Callable[[str], object] | None = None

    def migrate(self) -> list[int]:
        """Apply every migration not applied yet; refuse a database from a newer version."""
        with self._readable, self.transaction():
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

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction: kept when the block ends, rolled back if it raises; returns
        once committed. A transaction opened inside another is part of it.

        Group commit: concurrent writers share one `BEGIN IMMEDIATE … COMMIT`, each in a
        SAVEPOINT of its own, so one that raises rolls back only itself. The last of them
        (no other writer waiting, or the group full: `commits.CommitGroup.full`) commits for all;
        each returns only after that COMMIT, and an error of the COMMIT, or one that ended
        the whole transaction, is raised to every member. Writes keep their order: each
        member sees what the earlier ones wrote, other connections only what is committed.
        Under `leaving_commits` the caller doesn't wait here (see there).
        """
        if self._writing == threading.get_ident():
            return nullcontext(self._conn)  # part of the open one
        return self._outermost()

    @contextmanager
    def _outermost(self) -> Iterator[sqlite3.Connection]:
        """`transaction` on a thread that has none open: join the group, wait for its COMMIT."""
        with self._count:
            self._queued += 1
        self._lock.acquire()
        with self._count:
            self._queued -= 1
        leaving = self._pending if self._pending and self._pending.owner == self._me() else None
        kept = False
        try:
            group = self._member()
            try:
                with self._readable:
                    yield self._conn
                    self._conn.execute("RELEASE member")
            except BaseException as error:
                self._undo_member(group, error)
                raise
            finally:
                self._writing = None
                callbacks, self._after_commit = self._after_commit, []
            group.kept()
            kept = True
            if leaving is not None:
                leaving.add(group, callbacks)
                group.left_for_loop = self._me()
        finally:
            self._settle(leave=kept and leaving is not None)
            self._lock.release()
        if leaving is None:
            self._wait(group)
            for callback in callbacks:
                callback()

    def writers_waiting(self) -> int:
        """How many threads wait for the writer's lock to write: the open group waits for
        them to join before it commits."""
        return self._queued

    @staticmethod
    def _me() -> int:
        return threading.get_ident()

    def _member(self) -> CommitGroup:
        """Join the open group (BEGIN IMMEDIATE one when none is open), in a SAVEPOINT of
        its own; the writer's lock is held. A group the loop's short writes left open is
        committed first by another thread's write, so they never wait for a long one."""
        with self._readable:
            if self._group is not None and self._group.left_for_loop not in (None, self._me()):
                self._commit(self._group)
            if self._group is None:
                self._conn.execute("BEGIN IMMEDIATE")
                self._group = CommitGroup()
            group = self._group
            try:
                self._conn.execute("SAVEPOINT member")
            except sqlite3.Error as error:
                self._fail(group, error)
                raise
        self._writing = self._me()
        return group

    def _undo_member(self, group: CommitGroup, error: BaseException) -> None:
        """Roll back one member's writes. When SQLite ended the whole transaction (a full
        disk may), or the rollback fails, the group fails: every member raises it."""
        if not self._conn.in_transaction:
            self._fail(group, _sqlite_error_of(error))
            return
        try:
            self._conn.execute("ROLLBACK TO member")
            self._conn.execute("RELEASE member")
        except sqlite3.Error as failed:
            self._fail(group, failed)

    def _settle(self, leave: bool) -> None:
        """After a member, the writer's lock held: COMMIT the open group unless its commit
        is left to the loop or to a writer waiting for the lock (while it is not full)."""
        group = self._group
        if group is not None and not leave and (self._queued == 0 or group.full()):
            self._commit(group)

    def _commit(self, group: CommitGroup) -> None:
        """COMMIT the open group for all its members (the writer's lock is held)."""
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as error:
            self._fail(group, error)
            return
        self._group = None
        group.ended(None)

    def _fail(self, group: CommitGroup, error: sqlite3.Error | None) -> None:
        """End the group with nothing kept (COMMIT failed: disk full, an I/O error)."""
        if self._conn.in_transaction:
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
        if self._group is group:
            self._group = None
        group.ended(error or sqlite3.OperationalError("the write transaction was rolled back"))

    def _wait(self, group: CommitGroup) -> None:
        """Return once the group committed; raise what ended it, as `readable` says it."""
        try:
            group.committed.result()
        except sqlite3.Error as error:
            raise self._raised(error) from None

    def _raised(self, error: sqlite3.Error) -> BaseException:
        return storage_error(self.path, error) or error

    def _commit_from_loop(self, group: CommitGroup) -> None:
        """The loop's turn to commit a group its callers left open, never waiting for the
        writer's lock there: whoever holds it commits the group, or this tries again in a
        millisecond."""
        if group.committed.done():
            return
        if not self._lock.acquire(blocking=False):
            asyncio.get_running_loop().call_later(0.001, self._commit_from_loop, group)
            return
        try:
            if self._group is group:
                self._commit(group)
        finally:
            self._lock.release()

    @contextmanager
    def leaving_commits(self) -> Iterator[Pending]:
        """Write transactions of this thread's block don't wait for their COMMIT: it is left
        to `await pending.committed()`, after the loop's other ready work, so the writes
        handled on the event loop meanwhile join the same group. For the loop's short
        writes, holding the writer's lock (`writer_if_free`); the caller answers after it."""
        pending = Pending(self._me(), self._commit_from_loop, self._raised)
        self._pending = pending
        try:
            yield pending
        finally:
            self._pending = None

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
            with self._readable:
                return reader.execute(sql, params).fetchall()
        with self._lock, self._readable:
            return self._conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row a query returns, or None."""
        reader = self._reader()
        if reader is not None:
            with self._readable:
                found: sqlite3.Row | None = reader.execute(sql, params).fetchone()
            return found
        with self._lock, self._readable:
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
    def scanning(self) -> Iterator[Read]:
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
            with self._readable:
                return scan.execute(sql, params).fetchall()

        try:
            yield read
        finally:
            scan.close()

    def run(self, sql: str, params: Params = ()) -> int:
        """Execute one write statement in its own transaction (or the open one); rows changed."""
        with self._readable, self.transaction() as conn:
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
            if self._group is not None:  # writes whose commit was left to the loop
                self._commit(self._group)
            with suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
