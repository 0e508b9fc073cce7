"""What an agent's built-in `kindgi_remember` writes in a live run: a real fact.

Replays and dry runs never call this: the replay policy treats the built-in tool as the
write it is (a recorded result, else refused), so nothing is remembered twice.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from ..domain import facts as rules
from ..domain.errors import NotFound
from ..domain.facts import Fact, FactAttribution, FactGeneratedBy
from ..domain.time import now_iso
from ..models import ToolCall
from ..runtime.dispatch import Builtin
from ..runtime.tool_calls import ToolCallRecord
from ..store import conversations as conversation_store
from ..store import facts as store
from ..store import runs as run_store
from ..store.facts import FactFilter
from . import catalog
from .context import Context
from .memory import BATCH, FactDraft, new_fact


def remember(
    ctx: Context,
    policy: rules.RememberPolicy,
    place: rules.RunPlace,
    agent: tuple[str, str],
    call: tuple[str, Any],
    run_id: str,
) -> Fact | str:
    """What an agent's `kindgi_remember` call writes in a live run: an `unverified` fact,
    attributed to the agent version and the call, expiring after the policy's days (unless
    verified). The reason it writes nothing, for the model, when the call is not one it may
    make. A `key` the agent remembered before under the same scope is superseded."""
    asked = rules.remembered(policy, call[1], place)
    if isinstance(asked, str):
        return asked
    now = now_iso()
    draft = FactDraft(content=asked.content, valid_until=asked.valid_until)
    fact = replace(
        new_fact(draft, asked.type, asked.scope, now, FactAttribution("agent", agent[0], agent[1])),
        trust="unverified",
        generated_by=FactGeneratedBy(run_id, call[0]),
        review="pending" if asked.pending else None,
        expires_at=rules.expiry(now, None, asked.keep_days),
    )
    with ctx.db.transaction():
        earlier = _slot(ctx, asked) if asked.key is not None else None
        if earlier is None:
            store.insert(ctx.db, ctx.tenant_id, fact)
            return fact
        store.close(ctx.db, earlier.id, earlier.version, now, f"agent:{agent[0]}", "superseded")
        following = rules.next_revision(
            replace(earlier, **{k: getattr(fact, k) for k in _REMEMBERED}), str(uuid.uuid4()), now
        )
        store.insert(ctx.db, ctx.tenant_id, following)
        return following


_REMEMBERED = (
    "content",
    "content_hash",
    "size",
    "trust",
    "attributed_to",
    "generated_by",
    "review",
    "expires_at",
    "valid_until",
)


def _slot(ctx: Context, asked: rules.Remembered) -> Fact | None:
    """The current fact an agent remembered under the same type, scope and key."""
    after = None
    while True:
        batch = store.list_current(
            ctx.db, ctx.tenant_id, FactFilter(type=asked.type), after=after, limit=BATCH
        )
        for _, fact in batch:
            content = fact.content if isinstance(fact.content, dict) else {}
            if fact.scope == asked.scope and content.get("key") == asked.key:
                return fact
        if len(batch) < BATCH:
            return None
        after = batch[-1][0]


def builtins(ctx: Context, run_id: str) -> dict[str, Builtin]:
    """The built-in tools a live run's calls may name, carried out here, not in the pack."""

    async def call_remember(step: int, call: ToolCall, tool: dict[str, Any]) -> ToolCallRecord:
        return remember_call(ctx, run_id, step, call, tool)

    return {rules.REMEMBER_TOOL: call_remember}


def remember_call(
    ctx: Context, run_id: str, step: int, call: ToolCall, tool: dict[str, Any]
) -> ToolCallRecord:
    """A live `kindgi_remember` call: the fact it wrote, or why it wrote none."""
    run = run_store.get(ctx.db, run_id)
    if run is None:
        raise NotFound("run", run_id)
    agent = catalog.get_agent(ctx, str(run.agent_id), run.agent_version)
    policy = rules.RememberPolicy.of(agent)
    conversation = conversation_store.get(ctx.db, str(run.conversation_id))
    version = str(tool.get("version", rules.REMEMBER_VERSION))
    if policy is None:
        written: Fact | str = f"{rules.REMEMBER_TOOL}: this agent doesn't remember"
    else:
        place = rules.RunPlace(
            ctx.tenant_id,
            str(run.project_id),
            str(run.conversation_id),
            None if conversation is None else conversation.participant_id,
            ctx.caller.id,
        )
        written = remember(
            ctx, policy, place, (agent["id"], agent["version"]), (call.id, call.arguments), run_id
        )
    if isinstance(written, str):
        return ToolCallRecord(
            step, call.id, call.tool_id, version, call.arguments, None, written, "live"
        )
    result: dict[str, Any] = {"factId": written.id, "version": written.version}
    if written.review is not None:
        result["review"] = written.review
    return ToolCallRecord(
        step, call.id, call.tool_id, version, call.arguments, result, None, "live"
    )
