"""Guardrails: the pack's, read as the client reads them, and checked on an agent's turn
through the pack service's check protocol, where a deployed runtime checks them.

A live turn's trace has `mode: runtime`, a replay's (an eval run's) `mode: ci`, so each
guardrail's `scope.when` picks where it runs. `halt` fails the turn with the guardrail's
reason (`guardrail-violation`) and its answer isn't kept; any other action is recorded on
the turn (`output.violations`) and the turn completes. Live turns' outcomes are counted for
`guardrails.outcomes`; replays' and dry runs' are not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..domain import guardrails as rules
from ..domain.errors import NotFound
from ..domain.guardrails import Checked, GateOutcome, Guardrail, TurnFacts
from ..domain.narrow import texts_of
from ..domain.paging import Page, clamp_limit, decode_cursor, encode_cursor
from ..domain.time import now_iso
from ..runtime.turn_outcome import TurnOutcome
from ..store import guardrails as store
from ..store.runs import StoredRun
from .context import Context

GUARDRAIL_FAILED = "guardrail-violation"


def known(ctx: Context) -> list[Guardrail]:
    """The guardrails of the pack as last indexed, by id."""
    listed = getattr(ctx.runtime, "guardrails", None)
    entries = listed() if callable(listed) else []
    return sorted((Guardrail.from_index(e) for e in entries), key=lambda g: g.id)


def get(ctx: Context, guardrail_id: str) -> Guardrail:
    """One of the pack's guardrails; 404 `guardrail-not-found`."""
    found = next((g for g in known(ctx) if g.id == guardrail_id), None)
    if found is None:
        raise NotFound("guardrail", guardrail_id)
    return found


def list_page(
    ctx: Context, *, name: str | None, limit: int | None, cursor: str | None
) -> Page[Guardrail]:
    """The pack's guardrails by id; `name` keeps those whose id starts with it."""
    size = clamp_limit(limit)
    position = decode_cursor(cursor)
    after = str(position[0]) if position else ""
    shown = [g for g in known(ctx) if g.id > after and g.id.startswith(name or "")]
    more = len(shown) > size
    page = shown[:size]
    return Page(page, more, encode_cursor([page[-1].id]) if more and page else None)


def may_check(agent: Mapping[str, Any], outcome: TurnOutcome) -> bool:
    """Whether `checked` may change a turn: it succeeded and its agent lists guardrails (a
    turn's run and number are read for the checks only then)."""
    return outcome.ok and bool(texts_of(agent.get("guardrails")))


async def checked(
    ctx: Context, agent: dict[str, Any], run: StoredRun, outcome: TurnOutcome, turn: int
) -> TurnOutcome:
    """The turn after its guardrails checked its answer: failed by a `halt`, else with the
    other violations recorded. A turn that failed already, or has no guardrails, is as it was."""
    facts = TurnFacts(
        run_id=run.id,
        tenant_id=ctx.tenant_id,
        project_id=run.project_id,
        agent_id=str(agent["id"]),
        conversation_id=str(run.conversation_id),
        turn_number=turn,
        mode="ci" if run.replay_of or run.eval_run_id else "runtime",
    )
    chosen = [g for g in rules.of_agent(agent, known(ctx)) if rules.applies(g, facts)]
    if not outcome.ok or not chosen:
        return outcome
    at = now_iso()
    trace = rules.trace(
        facts, outcome.appended, outcome.usage, outcome.provider, at=at, typed=outcome.output
    )
    gate = rules.sort_out([await _check(ctx, g, trace, facts.run_id, at) for g in chosen])
    if facts.mode == "runtime" and not run.dry_run:
        _count(ctx, facts, str(agent["version"]), gate, at)
    return _after(outcome, gate)


async def _check(
    ctx: Context, guardrail: Guardrail, trace: dict[str, Any], run_id: str, at: str
) -> Checked:
    """One check in the pack service; a check that can't run is an error, never a pass."""
    runtime = ctx.runtime
    if runtime is None or not callable(getattr(runtime, "check", None)):
        return Checked(guardrail, error=("unknown-check", "no pack service runs checks"), at=at)
    call = runtime.check
    away = ctx.away()
    if away is not None:
        call = away.sent_home(call)
    answer = await call(
        guardrail.check,
        guardrail.config or {},
        trace,
        run_id=run_id,
        request_id=f"{run_id}:{guardrail.id}",
    )
    if not answer.ok:
        return Checked(guardrail, error=(str(answer.code), str(answer.message)), at=at)
    result = answer.output if isinstance(answer.output, dict) else {}
    if not isinstance(result.get("passed"), bool):
        return Checked(guardrail, error=("check-shape-invalid", "no `passed` in its result"))
    return Checked(guardrail, result=result, at=at)


def _after(outcome: TurnOutcome, gate: GateOutcome) -> TurnOutcome:
    """A halted turn fails and keeps no answer; otherwise the violations go on the turn."""
    if not gate.halts:
        return replace(outcome, violations=gate.recorded, guardrail_errors=gate.errors)
    kept = [m for m in outcome.appended if m is not outcome.response]
    failure = {"code": GUARDRAIL_FAILED, "message": gate.message()}
    return replace(
        outcome,
        appended=kept,
        response=None,
        output=None,
        failure=failure,
        violations=gate.blocking,
        guardrail_errors=gate.errors,
    )


def _count(ctx: Context, facts: TurnFacts, version: str, gate: GateOutcome, at: str) -> None:
    """Keep what each check came to on a live turn."""
    rows = [
        store.Outcome(guardrail, facts.run_id, facts.agent_id, version, outcome, at)
        for guardrail, outcome in gate.checks
    ]
    store.add(ctx.db, ctx.tenant_id, facts.project_id, rows)


@dataclass(frozen=True)
class Counts:
    """How many checks came to each outcome."""

    passed: int = 0
    violated: int = 0
    blocked: int = 0
    errored: int = 0


@dataclass(frozen=True)
class VersionCounts:
    """The counts on one agent version's turns."""

    agent_id: str
    agent_version: str
    passed: int
    violated: int
    blocked: int
    errored: int


@dataclass(frozen=True)
class BlockedRun:
    """A turn a guardrail blocked: its run and when, never its answer."""

    run_id: str
    at: str
    agent_id: str
    agent_version: str


@dataclass(frozen=True)
class Outcomes:
    """What a guardrail's checks came to in a project over a window."""

    guardrail_id: str
    from_: str
    to: str
    counts: Counts
    by_agent_version: list[VersionCounts]
    recent_blocked: list[BlockedRun]
    recorded_since: str | None = None


def outcomes(
    ctx: Context, guardrail_id: str, project_id: str, since: str, until: str, recent: int
) -> Outcomes:
    """Counts of a guardrail's checks on live turns in a project, from `since` to `until`."""
    found = store.in_window(ctx.db, ctx.tenant_id, guardrail_id, project_id, since, until)
    if not found and store.earliest(ctx.db, ctx.tenant_id, guardrail_id, project_id) is None:
        get(ctx, guardrail_id)
    tally: dict[tuple[str, str], dict[str, int]] = {}
    for one in found:
        per = tally.setdefault((one.agent_id, one.agent_version), dict.fromkeys(_OUTCOMES, 0))
        per[one.outcome] = per.get(one.outcome, 0) + 1
    total = {name: sum(per[name] for per in tally.values()) for name in _OUTCOMES}
    versions = sorted(tally.items(), key=lambda kv: -sum(kv[1].values()))[:100]
    return Outcomes(
        guardrail_id=guardrail_id,
        from_=since,
        to=until,
        counts=Counts(**total),
        by_agent_version=[VersionCounts(a, v, **per) for (a, v), per in versions],
        recent_blocked=[
            BlockedRun(o.run_id, o.at, o.agent_id, o.agent_version)
            for o in found
            if o.outcome == "blocked"
        ][:recent],
        recorded_since=store.earliest(ctx.db, ctx.tenant_id, guardrail_id, project_id),
    )


_OUTCOMES = ("passed", "violated", "blocked", "errored")
