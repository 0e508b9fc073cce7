"""An agent's test set (0.4), computed when read: its cases, hand cases and retiring.

A test set's id is `<agentId>~<projectId>` (`~` is URL-safe and in neither kind of id).
Its frozen versions are `test_set_versions`; the `/v1/test-sets` registry is
`test_set_registry`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from ..domain import test_sets as rules
from ..domain.errors import BadInput, Conflict, Gone, NotFound, ValidationFailed
from ..domain.eval_runs import FrozenVersion as FrozenVersion  # the api names it here
from ..domain.expectations import Answer, Decisions, GivenItem
from ..domain.json import JSON
from ..domain.paging import Page, clamp_limit, decode_cursor, make_page
from ..domain.status import TERMINAL
from ..domain.text import BLANK
from ..domain.time import now_iso
from ..store import expectations as codec
from ..store import test_sets as store
from ..store.runs import StoredRun
from . import catalog, projects, runs
from .context import Context

Scope = tuple[str, str, str]
Row = tuple[str, rules.CaseRow]
"""A case's kind (`correction` or `hand`) and its row."""


@dataclass(frozen=True)
class AgentTestSet:
    """An agent's test set in one project: case counts `{active, retired}` and its newest
    frozen version (None before a test run froze it)."""

    id: str
    agent_id: str
    project_id: str
    cases: rules.SetCaseCounts
    frozen_version: FrozenVersion | None = None


def scope_of(ctx: Context, agent_id: str, project_id: str | None) -> Scope:
    """(agent, project, tenant) of a known agent, in the named or the default project."""
    catalog.get_agent(ctx, agent_id)
    return agent_id, projects.require(ctx, project_id), ctx.tenant_id


def scope_of_set_id(ctx: Context, test_set_id: str) -> Scope | None:
    """The scope an agent's test set id (`<agentId>~<projectId>`) names, when the agent and
    project exist here; None for any other id."""
    parsed = rules.parse_set_id(test_set_id)
    if parsed is None:
        return None
    try:
        return scope_of(ctx, parsed[0], parsed[1])
    except NotFound:
        return None


def get(ctx: Context, agent_id: str, project_id: str | None = None) -> AgentTestSet:
    """The set: its id, case counts and its newest frozen version."""
    return summary(ctx, scope_of(ctx, agent_id, project_id))


def summary(ctx: Context, scope: Scope) -> AgentTestSet:
    """The set of a scope already checked."""
    set_id = rules.set_id_of(scope[0], scope[1])
    last = store.last_version(ctx.db, set_id)
    return AgentTestSet(
        id=set_id,
        agent_id=scope[0],
        project_id=scope[1],
        cases=store.case_counts(ctx.db, scope),
        frozen_version=FrozenVersion(set_id, rules.version_label(last)) if last else None,
    )


def list_cases(
    ctx: Context,
    agent_id: str,
    project_id: str | None,
    *,
    include_retired: bool = False,
    kinds: tuple[str, ...] = rules.CASE_KINDS,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[rules.TestCase]:
    """A page of cases, newest first; retired ones only when asked for."""
    scope = scope_of(ctx, agent_id, project_id)
    size = clamp_limit(limit)
    after = _position(cursor)
    retired = "include" if include_retired else "exclude"
    rows = case_rows(ctx, scope, kinds, retired=retired, limit=size + 1, after=after)
    page = make_page(rows, size, lambda row: [row[1].created_at, row[1].id])
    return Page(render_cases(ctx, page.items), page.has_more, page.next_cursor)


def _position(cursor: str | None) -> list[str] | None:
    """A case page's cursor: the (created at, id) it goes on after; 400 for any other."""
    position = decode_cursor(cursor)
    if position is None:
        return None
    texts = [p for p in position if isinstance(p, str)]
    if len(position) != 2 or len(texts) != 2:
        raise BadInput("cursor: not a cursor this server gave out", field="cursor")
    return texts


def case_rows(
    ctx: Context,
    scope: Scope,
    kinds: tuple[str, ...],
    *,
    retired: str,
    limit: int | None,
    after: Sequence[str] | None,
) -> list[Row]:
    """Correction and hand case rows merged newest first (at most `limit`)."""
    rows: list[Row] = []
    if "correction" in kinds:
        found = store.correction_cases(ctx.db, scope, retired=retired, limit=limit, after=after)
        rows.extend(("correction", row) for row in found)
    if "hand" in kinds:
        found = store.hand_cases(ctx.db, scope, retired=retired, limit=limit, after=after)
        rows.extend(("hand", row) for row in found)
    rows.sort(key=lambda row: (row[1].created_at, row[1].id), reverse=True)
    return rows if limit is None else rows[:limit]


def render_cases(ctx: Context, rows: list[Row]) -> list[rules.TestCase]:
    """The rows' cases; a correction's items are its live verdicts."""
    items = store.live_items(ctx.db, [row.id for kind, row in rows if kind == "correction"])
    return [_case_of(kind, row, items) for kind, row in rows]


def _case_of(kind: str, row: rules.CaseRow, live: dict[str, list[GivenItem]]) -> rules.TestCase:
    """One row's case, with what it expects read from its stored JSON (a correction's items:
    its live verdicts)."""
    stored = row.items if isinstance(row.items, list) else []
    kept: list[JSON] = [value for value in stored if isinstance(value, dict)]
    expected = list(codec.items_of(kept)) if kind == "hand" else live[row.id]
    decisions = codec.decisions_of(row.decisions if isinstance(row.decisions, dict) else None)
    answer = codec.answer_of(row.answer if isinstance(row.answer, dict) else None)
    return rules.case_of(kind, row, expected, decisions, answer)


def add_case(
    ctx: Context,
    agent_id: str,
    run_id: str,
    *,
    items: Sequence[GivenItem] = (),
    decisions: Decisions | None = None,
    answer: Answer | None = None,
) -> rules.TestCase:
    """Add a case by hand on one of the agent's finished, non-replay runs (`case-…`): the
    items it expects, and what the run should have done and said."""
    catalog.get_agent(ctx, agent_id)
    run = runs.get_record(ctx, run_id)
    _check_run(run, agent_id)
    rules.check_expectation(items, decisions, answer, run.output)
    if decisions:
        _check_tools(ctx, run, decisions)
    now = now_iso()
    case = rules.CaseRow(
        id=f"{rules.HAND_CASE_PREFIX}{uuid.uuid4()}",
        tenant_id=ctx.tenant_id,
        project_id=run.project_id,
        agent_id=agent_id,
        run_id=run.id,
        made_on=run.agent_version or "",
        items=[*codec.items_json(items)],
        decisions=codec.decisions_json(decisions),
        answer=codec.answer_json(answer),
        added_by_kind=ctx.caller.kind,
        added_by_id=ctx.caller.id,
        created_at=now,
        updated_at=now,
    )
    store.insert_hand_case(ctx.db, case)
    return rules.case_of("hand", case, items, decisions, answer)


def _check_run(run: StoredRun, agent_id: str) -> None:
    """The run must be the agent's, not a replay, finished with an output, and not erased."""
    if run.agent_id != agent_id:
        raise ValidationFailed("runId", f"is a run of {run.agent_id or 'a flow'}, not {agent_id}")
    if run.replay_of:
        raise ValidationFailed("runId", "is a comparison's replay, which can't be a case")
    if run.content_erased_at:
        raise Gone(f"Run {run.id}'s content was erased.", code="run-erased", runId=run.id)
    if run.status not in TERMINAL or run.output is None:
        raise Conflict(
            f"Run {run.id} is {run.status} and has no output to expect things of yet.",
            code="run-not-finished",
            runId=run.id,
        )


def _check_tools(ctx: Context, run: StoredRun, decisions: Decisions) -> None:
    """400 when `shouldCall` names a tool the run's agent version doesn't have."""
    agent = catalog.get_agent(ctx, str(run.agent_id), run.agent_version)
    known = {ref["id"] for ref in agent.get("tools") or []}
    for index, call in enumerate(decisions.should_call or ()):
        if call.tool_id not in known:
            raise ValidationFailed(
                f"decisions/shouldCall/{index}/toolId",
                f"{call.tool_id} is not a tool of {run.agent_id}@{run.agent_version}",
            )


def retire_case(ctx: Context, agent_id: str, case_id: str, reason: str) -> rules.TestCase:
    """Retire a case with a reason; kept, never un-retired, its correction left as it is."""
    reason = reason.strip(BLANK)
    if not reason:
        raise ValidationFailed("reason", "is required: why the case no longer applies")
    catalog.get_agent(ctx, agent_id)
    with ctx.db.transaction():
        case = find_case(ctx, agent_id, case_id)
        if case.retired is not None:
            raise Conflict(
                f"Case {case_id} was retired already: {case.retired.reason}",
                code="test-case-retired",
                caseId=case_id,
            )
        store.insert_retirement(
            ctx.db,
            ctx.tenant_id,
            case_id,
            reason,
            {"kind": ctx.caller.kind, "id": ctx.caller.id},
            now_iso(),
        )
    return find_case(ctx, agent_id, case_id)


def find_case(ctx: Context, agent_id: str, case_id: str) -> rules.TestCase:
    """One case of the agent's set (retired or not); 404 `test-case-not-found` saying why."""
    if case_id.startswith(rules.HAND_CASE_PREFIX):
        row = store.hand_case(ctx.db, case_id)
        if row is None or row.agent_id != agent_id or row.tenant_id != ctx.tenant_id:
            raise _no_case(case_id, agent_id)
        return render_cases(ctx, [("hand", row)])[0]
    facts = store.correction_facts(ctx.db, case_id)
    if facts is None or facts.tenant_id != ctx.tenant_id:
        raise _no_case(case_id, agent_id)
    if facts.subject_kind != "agent" or facts.subject_id != agent_id:
        raise _no_case(case_id, agent_id)
    why = rules.exclusion(facts)
    if why is not None:
        raise _no_case(case_id, agent_id, f"Correction {case_id} is not a case: {why}.")
    scope = (agent_id, facts.project_id, ctx.tenant_id)
    rows = store.correction_cases(
        ctx.db,
        scope,
        retired="include",
        limit=None,
        after=None,
        only_id=case_id,
    )
    return render_cases(ctx, [("correction", rows[0])])[0]


def _no_case(case_id: str, agent_id: str, message: str | None = None) -> NotFound:
    error = NotFound("test-case", case_id, id_field="case_id")
    error.message = message or f"Agent {agent_id}'s test set has no case {case_id}."
    error.args = (error.message,)
    return error
