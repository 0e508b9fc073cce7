"""Erasing a person's words: one fact, an app's end user (`participant`), an `external`
subject facts name, or one conversation. Served at `/v1/memory/erasures` (the 0.1.10
client and CLI) and, for a participant, at the 0.4 `/v1/erasures`: both erase the same.

A participant's erasure clears their corrections' words (reasons, `shouldSay`, `why`; the
verdicts stay), deletes the facts about them, and clears (and closes) their conversations and
the content of the runs that served them, with what was copied from those runs: the runs
replaying them (eval runs' replays and their conversations, and their answers and the
judging verdicts on them kept for reuse, with the verdicts on the person's corrections),
the judged copies, the values verdicts on them judged, the words eval runs'
cases copied from them or from the person's corrections, and the inputs dry runs'
previews copied from them. A run of theirs still going is cancelled and its turn stopped,
so it keeps nothing of the turn; one paused at a held call is cancelled and its approval
withdrawn (`run-ended`), the turn its wait kept and the call's arguments cleared, so no
decision carries the erased turn on. Every correction of
those runs is erased with them, and every hand case made of them retired, so no test case
replays a run whose words are gone (a conversation's erasure does the same). kindgi dev
erases at once: an erasure answers `completed`, and its ledger row keeps no identifier
(nor any keyed hash to replay it by).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from ..domain.errors import NotFound
from ..domain.paging import Page, clamp_limit, encode_cursor, whole_after
from ..domain.results import preview_without_words, without_words
from ..domain.time import now_iso
from ..store import approvals as approval_store
from ..store import conversations as conversation_store
from ..store import corrections as correction_store
from ..store import erasures as store
from ..store import eval_runs as eval_run_store
from ..store import facts as fact_store
from ..store import judged_copies, kept_answers
from ..store import run_waits as wait_store
from ..store import runs as run_store
from ..store import test_sets as test_set_store
from ..store.erasures import ErasureRow
from .context import Context
from .runs import pause

ERASED_RUN = "an erasure cleared the run it was made of"
"""Why a hand case made of an erased run is retired: it has no words left to replay."""


@dataclass(frozen=True)
class Selector:
    """Whose words: `fact`, `participant`, `external` or `conversation`, and the id."""

    kind: str
    id: str


@dataclass(frozen=True)
class MemoryErasure:
    """An erasure as the client reads it: done at once, so `completed` in phase `done`."""

    id: str
    selector_kind: str
    status: str
    phase: str
    requested_by: str
    matchable: bool
    counts: dict[str, int]
    attempts: int
    created_at: str
    started_at: str | None = None
    completed_at: str | None = None


@dataclass(frozen=True)
class ParticipantErasure:
    """What the 0.4 `/v1/erasures` answers: the corrections and judgments it touched."""

    participant_id: str
    erased_at: str
    corrections: int
    judgments: int


def erase(ctx: Context, selector: Selector) -> MemoryErasure:
    """Erase now and record it in the ledger; 404 for a fact or conversation that isn't
    here. Everything is cleared in one transaction."""
    now = now_iso()
    with ctx.db.transaction():
        counts = _clear(ctx, selector, now)
        row = ErasureRow(
            str(uuid.uuid4()),
            ctx.tenant_id,
            selector.kind,
            "completed",
            f"{ctx.caller.kind}:{ctx.caller.id}",
            counts,
            now,
            now,
            now,
        )
        store.insert(ctx.db, row)
    return _erasure(row)


def erase_participant(ctx: Context, participant_id: str) -> ParticipantErasure:
    """The 0.4 erasure: the same as a memory erasure of the participant, answered in 0.4's
    words (how many corrections and judgments it touched)."""
    done = erase(ctx, Selector("participant", participant_id))
    counts = done.counts
    return ParticipantErasure(
        participant_id, done.created_at, counts["corrections"], counts["judgments"]
    )


def _clear(ctx: Context, selector: Selector, now: str) -> dict[str, int]:
    """Clear what the selector names; how many of each thing it cleared."""
    db, tenant = ctx.db, ctx.tenant_id
    if selector.kind == "fact":
        if not fact_store.revisions(db, tenant, selector.id):
            raise NotFound("fact", selector.id)
        return {"facts": fact_store.erase(db, tenant, [selector.id])}
    if selector.kind == "external":
        found = fact_store.ids_about(db, tenant, external=selector.id)
        return {"facts": fact_store.erase(db, tenant, found)}
    if selector.kind == "conversation":
        row = conversation_store.get(db, selector.id)
        if row is None or row.tenant_id != tenant:
            raise NotFound("conversation", selector.id)
        conversations = [selector.id]
        facts = fact_store.ids_about(db, tenant, conversation=selector.id)
        words: list[str] = []
        counts: dict[str, int] = {}
    else:
        conversations = conversation_store.of_participant(db, tenant, selector.id)
        facts = fact_store.ids_about(db, tenant, participant=selector.id)
        words = correction_store.of_participant(db, tenant, selector.id)
        corrections, judgments = correction_store.erase_participant(db, tenant, selector.id, now)
        counts = {"corrections": corrections, "judgments": judgments}
    served = run_store.of_conversations(db, conversations)
    replays = run_store.replays_of(db, served)
    runs = [*served, *(run for run, _ in replays)]
    talked = [*conversations, *(c for _, c in replays if c is not None)]
    judged_copies.erase_copies(db, runs)
    correction_store.erase_on_runs(db, runs, now)  # no case of a run whose words are gone
    caller = {"kind": ctx.caller.kind, "id": ctx.caller.id}
    test_set_store.retire_hand_cases_of(db, runs, ERASED_RUN, caller, now)
    kept_answers.forget_answers_of(db, [run for run, _ in replays])
    kept_answers.forget_verdicts_of(db, words, runs)
    _clear_eval_cases(ctx, words, runs)
    _clear_previews(ctx, runs)
    counts.update(
        facts=fact_store.erase(db, tenant, facts),
        conversations=len(conversations),
        messages=conversation_store.erase(db, talked, now),
        runs=run_store.erase_content(db, runs, now),
    )
    pause.end_erased(ctx, runs)  # after the content is cleared: why it ended stays readable
    wait_store.erase_snapshots(db, runs)
    approval_store.erase_held_arguments(db, runs)
    return counts


def _clear_eval_cases(ctx: Context, correction_ids: list[str], run_ids: list[str]) -> None:
    """Clear the words eval runs' cases copied from these corrections and runs (a rescore's
    copies too): the checks and differences stay, as the erased runs' structure does."""
    found = eval_run_store.cases_of(ctx.db, correction_ids, run_ids)
    cleared = [(run, index, replace(case, result=without_words(case.result)))
               for run, index, case in found]  # fmt: skip
    eval_run_store.rewrite_cases(ctx.db, cleared)


def _clear_previews(ctx: Context, run_ids: list[str]) -> None:
    """Clear the inputs dry runs' previews copied from these runs (their case ids stay)."""
    erased = set(run_ids)
    found = eval_run_store.dry_runs_of(ctx.db, run_ids)
    cleared = [(run, preview_without_words(result, erased)) for run, result in found]
    eval_run_store.rewrite_dry_runs(ctx.db, cleared)


def _erasure(row: ErasureRow) -> MemoryErasure:
    return MemoryErasure(
        id=row.id,
        selector_kind=row.selector_kind,
        status=row.status,
        phase="done",
        requested_by=row.requested_by,
        matchable=False,
        counts=row.counts,
        attempts=0,
        created_at=row.created_at,
        started_at=row.started_at,
        completed_at=row.completed_at,
    )


def get(ctx: Context, erasure_id: str) -> MemoryErasure:
    """One erasure of the ledger; 404 `erasure-not-found`."""
    row = store.get(ctx.db, ctx.tenant_id, erasure_id)
    if row is None:
        raise NotFound("erasure", erasure_id)
    return _erasure(row)


def list_page(ctx: Context, *, limit: int | None, cursor: str | None) -> Page[MemoryErasure]:
    """The ledger, newest first."""
    size = clamp_limit(limit)
    rows = store.page(ctx.db, ctx.tenant_id, after=whole_after(cursor), limit=size + 1)
    more = len(rows) > size
    shown = rows[:size]
    return Page(
        [_erasure(row) for _, row in shown],
        more,
        encode_cursor([shown[-1][0]]) if more and shown else None,
    )


def ledger(ctx: Context) -> list[MemoryErasure]:
    """The whole ledger, oldest first (content-free: no erasure keeps whom it erased)."""
    found: list[MemoryErasure] = []
    after = None
    while True:
        rows = store.page(ctx.db, ctx.tenant_id, after=after, limit=500, newest_first=False)
        found.extend(_erasure(row) for _, row in rows)
        if len(rows) < 500:
            return found
        after = rows[-1][0]
