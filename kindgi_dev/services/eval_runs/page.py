"""A page of an eval run's work kept in memory and stored in one transaction.

Each replay of an agent leaves the rows of its run (the conversation of its one turn, the
run as it ended, its tool calls, and its journal unless it completed) and its answer and
judging verdicts kept for reuse, a replay of a flow its run, tool calls and journal, each
finished case its result; a page holds
them until `PAGE_CASES` cases finished or `PAGE_SECONDS` went by since the first, then
stores them all with one statement a table. A case's result and the replay runs it rests
on land in the same transaction, so a stop never keeps a case without its runs.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from ...domain.comparison import Replayed
from ...domain.json import JSONObject
from ...domain.results import FinishedCase
from ...domain.time import now_iso
from ...store import conversations as conversation_store
from ...store import eval_runs as store
from ...store import kept_answers
from ...store import runs as run_store
from ...store import tool_calls as tool_call_store
from ...store.conversations import ConversationMessage, StoredConversation
from ...store.kept_answers import KeptVerdict
from ...store.runs import JournalEntry, StoredRun
from ..context import Context

PAGE_CASES = 50
"""Cases a page holds at most: the memory their rows take stays small (about 10 kB each)."""
PAGE_SECONDS = 0.25
"""How long a finished case waits to be stored at most: progress, as a poll reads it, lags
no more behind the replays (with a slow model, a page fills slowly)."""


CANCELLED = "The eval run was cancelled."


@dataclass(frozen=True)
class ReplayRows:
    """What one finished replay stores: an agent's conversation (one turn, counted; None for
    a flow's replay, which has none), the run as it ended, its tool calls, journal and the
    turn's messages."""

    conversation: StoredConversation | None
    run: StoredRun
    tool_calls: list[JSONObject]
    journal: list[JournalEntry]
    messages: list[ConversationMessage]


def started_rows(
    run: StoredRun, conversation: StoredConversation | None, *, cancelled: bool = False
) -> ReplayRows:
    """The rows of a replay that didn't finish, as a live run's start leaves them: paused at
    a held call, or stopped (a stop's replays read as interrupted at the next start), or
    `cancelled` with its eval run (as `runs.finish_cancelled` ends one)."""
    journal = [JournalEntry("run.started", run.created_at, {"input": run.input})]
    if not cancelled:
        return ReplayRows(conversation, run, [], journal, [])
    now = now_iso()
    journal.append(JournalEntry("run.cancelled", now))
    ended = replace(run, status="cancelled", updated_at=now, completed_at=now,
                    failure_message=CANCELLED)  # fmt: skip
    return ReplayRows(conversation, ended, [], journal, [])


def store_now(ctx: Context, rows: ReplayRows) -> None:
    """Store one replay's rows in a transaction of their own."""
    page = PendingPage(ctx, str(rows.run.eval_run_id))
    page.add_replay(rows)
    page.store()


@dataclass
class PendingPage:
    """The replays and finished cases of one eval run not stored yet."""

    ctx: Context
    eval_run_id: str
    replays: list[ReplayRows] = field(default_factory=list)
    cases: list[tuple[int, str, FinishedCase, str]] = field(default_factory=list)
    answers: list[tuple[kept_answers.AnswerKey, Replayed]] = field(default_factory=list)
    verdicts: list[KeptVerdict] = field(default_factory=list)
    due: asyncio.TimerHandle | None = None

    def add_replay(self, rows: ReplayRows) -> None:
        """Keep a replay's rows until the page is stored."""
        self.replays.append(rows)

    def keep_answer(self, key: kept_answers.AnswerKey, answer: Replayed) -> None:
        """Keep a replay's answer for a later run to reuse, stored with the page."""
        self.answers.append((key, answer))

    def keep_verdict(self, verdict: KeptVerdict) -> None:
        """Keep a judging model's verdict, stored with the page."""
        self.verdicts.append(verdict)

    def add_case(self, index: int, case_id: str, result: FinishedCase, at: str) -> None:
        """Keep a finished case; store the page once it is full or its first case waited."""
        self.cases.append((index, case_id, result, at))
        if len(self.cases) >= PAGE_CASES:
            self.store()
        elif self.due is None:  # on the eval loop: stored then, if no other case fills it
            self.due = asyncio.get_running_loop().call_later(PAGE_SECONDS, self.store)

    def store(self) -> None:
        """Write everything held in one transaction (nothing when the page is empty). A
        write that fails keeps it all, for the run's last store to try again and fail the
        run saying why (a timer's failure is only logged)."""
        if self.due is not None:
            self.due.cancel()
            self.due = None
        replays, cases, answers, verdicts = self.replays, self.cases, self.answers, self.verdicts
        if not (replays or cases or answers or verdicts):
            return
        db = self.ctx.db
        with db.transaction():
            if turns := [(r.conversation, r.run, r.messages) for r in replays
                         if r.conversation is not None]:  # fmt: skip
                conversation_store.insert_turns(db, turns)
            if replays:
                run_store.insert_many(db, [r.run for r in replays], [r.tool_calls for r in replays])
                tool_call_store.add_tool_calls_of(db, [(r.run.id, r.tool_calls) for r in replays])
                run_store.add_new_journals(
                    db, [(r.run.id, r.journal) for r in replays if r.journal]
                )
            if answers:
                kept_answers.keep_answers(db, answers)
            if verdicts:
                kept_answers.keep_verdicts(db, verdicts)
            if cases:
                store.add_cases(db, self.eval_run_id, cases)
        self.replays, self.cases, self.answers, self.verdicts = [], [], [], []


current: ContextVar[PendingPage | None] = ContextVar("eval_run_page", default=None)
"""The page of the eval run whose executor the caller runs in (its replays' tasks copy
it), or None: then a replay stores its run as it ends."""
