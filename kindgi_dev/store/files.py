"""The database file and its disk: what their failures mean to the user, and the
file's modes before the first connection opens it (see `store.db`)."""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import suppress
from pathlib import Path

from ..domain.errors import KindgiError


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


class Readable:
    """Turn the file's and the disk's failures into errors that say what happened and what
    to do (see `storage_error`); any other SQLite error is ours, and raised as it is.

    A `with` block's guard that keeps no state, so a database makes one and reuses it
    around every statement (a generator's context manager was made anew for each)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        if isinstance(error, sqlite3.Error):
            meant = storage_error(self.path, error)
            if meant is not None:
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
