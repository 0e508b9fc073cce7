"""Group commit's records: the write transaction several callers share, and what a caller
that leaves its commit to the event loop holds until then (see `Database.transaction`).

Under WAL with `synchronous=NORMAL` a COMMIT is no fsync but it does write every page the
transaction changed to the WAL; consecutive corrections change the same few pages (the
right ends of their indexes), so writes committed together write each page once.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

GROUP_MEMBERS = 64
"""A group commits once it has this many members, however many wait behind it."""
GROUP_SECONDS = 0.005
"""... or once its first member's write has waited this long for the COMMIT: a member
waits for the writes that joined after its own, and this keeps that wait short beside a
write of its own (a long write that joins still makes the earlier ones wait for it)."""


@dataclass(eq=False)
class CommitGroup:
    """One `BEGIN IMMEDIATE … COMMIT` shared by its members, each in its own SAVEPOINT:
    `committed` is set once COMMIT returned, or to the error that ended the transaction,
    which every member then raises."""

    members: int = 0
    first_kept: float | None = None
    committed: Future[None] = field(default_factory=Future)
    commit_scheduled: bool = False
    left_for_loop: int | None = None
    """The thread of the event loop its members left their COMMIT to, if they did."""

    def kept(self) -> None:
        """One more member's writes are in, waiting for the COMMIT."""
        self.members += 1
        if self.first_kept is None:
            self.first_kept = time.monotonic()

    def full(self) -> bool:
        """Whether it should commit now rather than wait for more members."""
        if self.members >= GROUP_MEMBERS:
            return True
        return self.first_kept is not None and time.monotonic() - self.first_kept >= GROUP_SECONDS

    def ended(self, error: sqlite3.Error | None) -> None:
        """Tell its members it committed (None) or what ended it."""
        if self.committed.done():
            return
        if error is None:
            self.committed.set_result(None)
        else:
            self.committed.set_exception(error)


@dataclass(eq=False)
class Pending:
    """The writes a caller on the event loop made without waiting for their commit (see
    `Database.leaving_commits`): their groups, and their `after_commit` callbacks."""

    owner: int
    """The thread whose transactions leave their commit here."""
    commit: Callable[[CommitGroup], None]
    """Commits a group from the loop, when no other caller will (see `Database`)."""
    raised: Callable[[sqlite3.Error], BaseException]
    """What a group's error is to the caller (see `store.files.storage_error`)."""
    groups: list[CommitGroup] = field(default_factory=list)
    callbacks: list[Callable[[], object]] = field(default_factory=list)

    def add(self, group: CommitGroup, callbacks: list[Callable[[], object]]) -> None:
        """A write of this caller, in `group`."""
        if group not in self.groups:
            self.groups.append(group)
        self.callbacks.extend(callbacks)

    async def committed(self) -> None:
        """Return once every write is committed (raise what ended a group that failed);
        then run their callbacks. The commit runs after the loop's other ready work, so
        requests handled meanwhile join the same group."""
        loop = asyncio.get_running_loop()
        for group in self.groups:
            if not group.commit_scheduled:
                group.commit_scheduled = True
                loop.call_soon(self.commit, group)
            try:
                await _settled(loop, group.committed)
            except sqlite3.Error as error:
                raise self.raised(error) from None
        for callback in self.callbacks:
            callback()


def _settled(loop: asyncio.AbstractEventLoop, done: Future[None]) -> asyncio.Future[None]:
    """`done` as the loop's future. `asyncio.wrap_future` wakes the loop through its
    self-pipe even when the loop's own commit sets `done`, the usual case: this hands the
    outcome over directly then, and through `call_soon_threadsafe` only from a thread."""
    waiter: asyncio.Future[None] = loop.create_future()
    owner = threading.get_ident()

    def copy(ended: Future[None]) -> None:
        if waiter.done():
            return
        error = ended.exception()
        if error is None:
            waiter.set_result(None)
        else:
            waiter.set_exception(error)

    def handed(ended: Future[None]) -> None:
        if threading.get_ident() == owner:
            copy(ended)
        else:
            loop.call_soon_threadsafe(copy, ended)

    done.add_done_callback(handed)
    return waiter
