"""One replay of a case by an agent version: an ordinary run marked `replayOf` and
`evalRunId`, worked out in memory and stored with its eval run's page (see `page`).

What every replay of a version shares (its tools, its model adapter, the judging model)
is looked up once per eval run, in `ReplayCandidate`, not once a case.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...domain.blocks import settings_differ
from ...domain.comparison import ReplayCase, Replayed
from ...domain.errors import NotFound, Unprocessable
from ...domain.json import JSON
from ...domain.outcomes import errored_run, errored_tool
from ...domain.reuse import case_hash, content_hash
from ...domain.time import now_iso
from ...ids import ordered_ids
from ...runtime.agent_turn import HISTORY_LIMIT, run_agent_turn, turn_result
from ...runtime.dispatch import tool_env
from ...runtime.providers.base import ModelAdapter
from ...runtime.providers.function import FunctionModelAdapter
from ...runtime.replay_dispatch import ReplayDispatcher
from ...runtime.turn_outcome import TurnOutcome
from ...store import kept_answers
from ...store import runs as run_store
from ...store.conversations import ConversationMessage, StoredConversation
from ...store.runs import JournalEntry, StoredRun
from .. import blocks, catalog, conversations, guardrails, models, runs
from ..context import Context
from ..runs.pause import hold
from ..runs.start import agent_run
from . import page as pages
from .inline_model import InlineWhileQuick
from .page import ReplayRows
from .reuse import judge_answers, model_of


@dataclass
class ReplayCandidate:
    """An agent version as its eval run's replays share it, looked up on the eval loop at
    the first replay (an HTTP adapter sends its calls to the API's loop from there)."""

    agent: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    adapter: ModelAdapter | None
    failure: dict[str, str] | None
    judging: ModelAdapter | None
    pins: dict[str, str] | None
    """The settings block versions the candidate pins (None: it names no blocks)."""
    settings: dict[str, dict[str, Any]]
    """Those blocks' values, by block id, as its tools get them (`ctx.settings`)."""
    content: str | None = None
    """The agent content's hash its answers are kept under: only when its run reuses
    answers, and has a model."""
    reuse: bool = False
    past_refs: dict[tuple[str, str], list[Any] | None] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: Context, agent: dict[str, Any], *, reuse: bool = False) -> ReplayCandidate:
        """Look up once what each replay of `agent` needs (and, with `reuse`, the hash of
        its content, which its answers are reused and kept under)."""
        adapter: ModelAdapter | None = None
        failure = None
        try:
            adapter = models.adapter_for(ctx, agent)
        except Unprocessable as error:
            failure = {"code": error.wire_code, "message": error.message}
        pins = blocks.pins_of(ctx, agent) if agent.get("settings") else None
        pinned = {**agent, "blockPins": pins}  # another block version is other content
        content = None if adapter is None or not reuse else content_hash(pinned, model_of(adapter))
        if isinstance(adapter, FunctionModelAdapter):
            adapter = InlineWhileQuick(adapter)
        tools = runs.tools_of(ctx, agent)
        settings = blocks.settings_of(ctx, pins or {})
        judging = models.judging_adapter(ctx)
        return cls(agent, tools, adapter, failure, judging, pins, settings, content, reuse)

    def answer_key(
        self, ctx: Context, case: ReplayCase, reads: str, repetition: int
    ) -> kept_answers.AnswerKey | None:
        """Where this content's answer to the case's repetition is kept, or None."""
        if self.content is None:
            return None
        return (ctx.tenant_id, self.content, case_hash(case, reads), repetition)

    def settings_differ(self, ctx: Context, case: ReplayCase) -> bool:
        """Whether the candidate pins other settings blocks than the past run did: the block
        versions each run pinned, or, for a past run from before pins were recorded, the
        ranges its version names (looked up once per version)."""
        key = (case.agent_id, case.made_on)
        if key not in self.past_refs:
            try:
                past = catalog.get_agent(ctx, case.agent_id, case.made_on)
            except NotFound:
                self.past_refs[key] = None
            else:
                self.past_refs[key] = list(past.get("settings") or [])
        past_refs, refs = self.past_refs[key], self.agent.get("settings") or []
        if past_refs is None or (not refs and not past_refs):
            return False
        past_pins = run_store.block_pins(ctx.db, case.run_id)
        return settings_differ(self.pins, past_pins, refs, past_refs)


async def replay_case(
    ctx: Context,
    eval_run_id: str,
    candidate: ReplayCandidate,
    project_id: str,
    case: ReplayCase,
    reads: str,
    repetition: int = 0,
) -> Replayed:
    """One replay of a case, or the answer kept for it when the run reuses answers (judged
    again, so its checks are the judge's configured now); its rows go to the eval run's page
    (stored at once without), and, when the run reuses answers, its answer too, kept for
    the next such run."""
    key = candidate.answer_key(ctx, case, reads, repetition)
    if key is not None:
        kept = kept_answers.answer(ctx.db, key)
        if kept is not None:  # kept without verdicts: judged by the judge configured now
            judged = (
                await judge_answers(ctx, candidate.judging, True, case, kept.output)
                if kept.completed
                else {}
            )
            return replace(kept, judged=judged, reused=True)
    replayed, ended = await _replayed(ctx, eval_run_id, candidate, project_id, case, reads)
    page = pages.current.get()
    if key is not None and page is not None and ended and replayed.error is None:
        page.keep_answer(key, replayed)
    return replayed


async def _replayed(
    ctx: Context,
    eval_run_id: str,
    candidate: ReplayCandidate,
    project_id: str,
    case: ReplayCase,
    reads: str,
) -> tuple[Replayed, bool]:
    """The case replayed: its run worked out and its rows given to the page; and whether
    the run ended (not paused at a call held for an approval)."""
    agent = candidate.agent
    run = _new_run(ctx, candidate, project_id, case, eval_run_id)
    live = runs.live_dispatcher(
        ctx,
        project_id,
        run.id,
        env_of=lambda tool: dict(case.tool_env.get(str(tool.get("id")), tool_env(tool))),
        settings=candidate.settings,
    )
    dispatcher = ReplayDispatcher(
        list(case.recorded),
        live,
        reads=reads,  # type: ignore[arg-type]
        strict=case.strict,
        tool_env=case.tool_env,
        settings_differ=candidate.settings_differ(ctx, case),
    )
    try:
        outcome = await _turn(ctx, candidate, run, case, dispatcher)
    except asyncio.CancelledError:
        cancelled = eval_run_id in ctx.eval_tasks
        pages.store_now(ctx, pages.started_rows(run, _conversation(ctx, run, case),
                                                cancelled=cancelled))  # fmt: skip
        raise
    if outcome.paused is not None:  # a call held for an approval: stored as a live run's pause
        pages.store_now(ctx, pages.started_rows(run, _conversation(ctx, run, case)))
        held = candidate.tools.get(outcome.paused.held.tool_id) or {}
        hold(ctx, run.id, agent, str(held.get("version", "")), outcome)
    else:
        rows = _rows(ctx, run, outcome, case, dispatcher)
        page = pages.current.get()
        if page is None:
            pages.store_now(ctx, rows)
        else:
            page.add_replay(rows)
        run = rows.run
    output = run.output
    judged = (
        await judge_answers(ctx, candidate.judging, candidate.reuse, case, output)
        if outcome.ok
        else {}
    )
    tools = [c.as_journal() for c in outcome.tool_calls]
    errored = errored_run(outcome.failure) or any(errored_tool(t) for t in tools)
    replayed = Replayed(
        run_id=run.id,
        output=output,
        tools=tools,
        diverged=dispatcher.diverged,
        refused=dispatcher.refused,
        approval_skipped=dispatcher.approval_skipped,
        provider=outcome.provider,
        error=_error_of(outcome.failure, tools) if errored else None,
        judged=judged,
        guardrails=tripped(outcome),
        completed=outcome.ok,
    )
    return replayed, outcome.paused is None


async def _turn(
    ctx: Context,
    candidate: ReplayCandidate,
    run: StoredRun,
    case: ReplayCase,
    dispatcher: ReplayDispatcher,
) -> TurnOutcome:
    """The replay's turn, its guardrails checked (a turn without a model fails as a run does)."""
    if candidate.adapter is None:
        failure = candidate.failure or {"code": "model-invocation-failed", "message": ""}
        return TurnOutcome([], None, None, [], {"steps": 0}, {"id": "none", "model": "none"},
                           failure)  # fmt: skip
    outcome = await run_agent_turn(
        candidate.agent, candidate.tools, case.message, case.history, candidate.adapter, dispatcher
    )
    return await guardrails.checked(ctx, candidate.agent, run, outcome, 1)


def _new_run(
    ctx: Context, candidate: ReplayCandidate, project_id: str, case: ReplayCase, eval_run_id: str
) -> StoredRun:
    """The replay's run as it starts, in its own new conversation (as `runs.open_run`); both
    ids ordered by time, so a page of replays adds to the last pages of their indexes."""
    run_id, conversation_id = ordered_ids(2)
    return agent_run(
        ctx,
        candidate.agent,
        project_id,
        run_id=run_id,
        conversation_id=conversation_id,
        data={"userMessage": case.message},
        via="explicit",
        at=now_iso(),
        replay_of=case.run_id,
        eval_run_id=eval_run_id,
        block_pins=candidate.pins,
        asked_model=candidate.adapter.model if candidate.adapter is not None else None,
    )


def _conversation(ctx: Context, run: StoredRun, case: ReplayCase) -> StoredConversation:
    """The replay's own conversation, opened with it and no turn counted yet."""
    return StoredConversation(
        id=str(run.conversation_id),
        tenant_id=ctx.tenant_id,
        project_id=run.project_id,
        agent_id=str(run.agent_id),
        agent_version=str(run.agent_version),
        title=conversations.title_of(case.message),
        opened_by=conversations.principal(ctx),
        status="open",
        opened_at=run.created_at,
        replay=True,
    )


def _rows(
    ctx: Context,
    run: StoredRun,
    outcome: TurnOutcome,
    case: ReplayCase,
    dispatcher: ReplayDispatcher,
) -> ReplayRows:
    """The rows of a finished replay, as `runs.open_run` and `runs.record_outcome` keep a
    live run's."""
    now = now_iso()
    conversation = replace(_conversation(ctx, run, case), turn_count=1, last_message_at=now)
    history = case.history
    ended = replace(
        run,
        status="completed" if outcome.ok else "failed",
        updated_at=now,
        completed_at=now,
        output=turn_result(outcome, run.id, str(run.conversation_id), 1),
        context={
            "history": [*history[-HISTORY_LIMIT:]],
            "historyTruncated": len(history) > HISTORY_LIMIT,
            "retrieved": [],
        },
        tool_env={tool: {**env} for tool, env in (dispatcher.tool_env or {}).items()},
        provider_id=outcome.provider.get("id"),
        model=outcome.provider.get("model"),
        failure_code=(outcome.failure or {}).get("code"),
        failure_message=(outcome.failure or {}).get("message"),
    )
    journal = [] if outcome.ok else _failed_journal(run, outcome, now)
    messages = [
        ConversationMessage(m["role"], m.get("content"), tool_call=m.get("toolCall") or None)
        for m in outcome.appended
    ]
    calls = [c.as_journal() for c in outcome.tool_calls]
    return ReplayRows(conversation, ended, calls, journal, messages)


def _failed_journal(run: StoredRun, outcome: TurnOutcome, now: str) -> list[JournalEntry]:
    """A failed replay's journal, kept as a live run's (a completed one's is worked out on
    read from its run and tool calls: `runs.replay_journal`)."""
    journal = [JournalEntry("run.started", run.created_at, {"input": run.input})]
    journal += [
        JournalEntry("step.completed", now, c.as_journal(), node_id=f"tool:{c.tool_id}")
        for c in outcome.tool_calls
    ]
    journal.append(JournalEntry("run.failed", now, outcome.failure or {}))
    return journal


def _error_of(failure: Mapping[str, JSON] | None, tools: Sequence[Mapping[str, JSON]]) -> str:
    """What an errored replay says: its run's failure, else the tool call that errored."""
    if failure:
        return str(failure.get("message") or failure.get("code"))
    return next(str(t["error"]) for t in tools if errored_tool(t))


def tripped(outcome: TurnOutcome) -> tuple[str, ...]:
    """The guardrails a replay tripped: its violations, and `halt` checks that couldn't run."""
    broken = [e for e in outcome.guardrail_errors if e.get("action") == "halt"]
    return tuple(v["guardrailId"] for v in [*outcome.violations, *broken])
