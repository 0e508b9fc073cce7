"""An agent's test set (0.4), computed when read: its cases, hand cases, retiring, and the
frozen versions a test run checks.

A test set's id is `<agentId>~<projectId>` (`~` is URL-safe and in neither kind of id).
Also the `/v1/test-sets` registry: published entries, and under the `corrections` kind the
agents' test sets and the judged suites built before (looked up in that order).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from ..domain import test_sets as rules
from ..domain.errors import BadInput, Conflict, Gone, NotFound, ValidationFailed
from ..domain.paging import Page, clamp_limit, decode_cursor, make_page, offset_of, page_of
from ..domain.status import TERMINAL
from ..domain.time import now_iso
from ..store import test_sets as store
from . import catalog, eval_suites, projects, replay_cases, runs, test_set_pulls
from .catalog import version_key
from .context import Context

Scope = tuple[str, str, str]
Row = tuple[str, dict[str, Any]]


def scope_of(ctx: Context, agent_id: str, project_id: str | None) -> Scope:
    """(agent, project, tenant) of a known agent, in the named or the default project."""
    catalog.get_agent(ctx, agent_id)
    return agent_id, projects.require(ctx, project_id), ctx.tenant_id


def get(ctx: Context, agent_id: str, project_id: str | None = None) -> dict[str, Any]:
    """The set: its id, case counts `{active, retired}`, and its newest `frozenVersion`."""
    return summary(ctx, scope_of(ctx, agent_id, project_id))


def summary(ctx: Context, scope: Scope) -> dict[str, Any]:
    """The set of a scope already checked."""
    set_id = rules.set_id_of(scope[0], scope[1])
    found: dict[str, Any] = {
        "id": set_id,
        "agentId": scope[0],
        "projectId": scope[1],
        "cases": store.case_counts(ctx.db, scope),
    }
    last = store.last_version(ctx.db, set_id)
    if last:
        found["frozenVersion"] = {"testSetId": set_id, "version": rules.version_label(last)}
    return found


def list_cases(
    ctx: Context,
    agent_id: str,
    project_id: str | None,
    *,
    include_retired: bool = False,
    kinds: tuple[str, ...] = rules.CASE_KINDS,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[dict[str, Any]]:
    """A page of cases, newest first; retired ones only when asked for."""
    scope = scope_of(ctx, agent_id, project_id)
    size = clamp_limit(limit)
    after = _position(cursor)
    retired = "include" if include_retired else "exclude"
    rows = _rows(ctx, scope, kinds, retired=retired, limit=size + 1, after=after)
    page = make_page(rows, size, lambda row: [row[1]["created_at"], row[1]["id"]])
    return Page(_render(ctx, page.items), page.has_more, page.next_cursor)


def _position(cursor: str | None) -> list[Any] | None:
    position = decode_cursor(cursor)
    if position is not None and (
        len(position) != 2 or not all(isinstance(p, str) for p in position)
    ):
        raise BadInput("cursor: not a cursor this server gave out", field="cursor")
    return position


def _rows(
    ctx: Context,
    scope: Scope,
    kinds: tuple[str, ...],
    *,
    retired: str,
    limit: int | None,
    after: list[Any] | None,
) -> list[Row]:
    """Correction and hand case rows merged newest first (at most `limit`)."""
    rows: list[Row] = []
    if "correction" in kinds:
        found = store.correction_cases(ctx.db, scope, retired=retired, limit=limit, after=after)
        rows.extend(("correction", row) for row in found)
    if "hand" in kinds:
        found = store.hand_cases(ctx.db, scope, retired=retired, limit=limit, after=after)
        rows.extend(("hand", row) for row in found)
    rows.sort(key=lambda row: (row[1]["created_at"], row[1]["id"]), reverse=True)
    return rows if limit is None else rows[:limit]


def _render(ctx: Context, rows: list[Row]) -> list[dict[str, Any]]:
    """Cases on the wire; a correction's items are its live verdicts."""
    items = store.live_items(ctx.db, [row["id"] for kind, row in rows if kind == "correction"])
    cases = []
    for kind, row in rows:
        expected = row["items"] if kind == "hand" else map(rules.expected_item, items[row["id"]])
        case = rules.case_of(kind, row, list(expected or []))
        cases.append(rules.with_retirement(case, row))
    return cases


def add_case(ctx: Context, agent_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Add a case by hand on one of the agent's finished, non-replay runs (`case-…`)."""
    catalog.get_agent(ctx, agent_id)
    run = runs.get_record(ctx, body["runId"])
    _check_run(run, agent_id)
    items = body.get("items") or []
    decisions, answer = body.get("decisions"), body.get("answer")
    rules.check_expectation(items, decisions, answer, run.get("output"))
    if decisions:
        _check_tools(ctx, run, decisions)
    now = now_iso()
    case = {
        "id": f"{rules.HAND_CASE_PREFIX}{uuid.uuid4()}",
        "tenant_id": ctx.tenant_id,
        "project_id": run["project_id"],
        "agent_id": agent_id,
        "run_id": run["id"],
        "made_on": run["agent_version"],
        "items": items,
        "decisions": decisions,
        "answer": answer,
        "added_by_kind": ctx.caller.kind,
        "added_by_id": ctx.caller.id,
        "created_at": now,
        "updated_at": now,
    }
    store.insert_hand_case(ctx.db, case)
    return rules.case_of("hand", case, items)


def _check_run(run: dict[str, Any], agent_id: str) -> None:
    """The run must be the agent's, not a replay, finished with an output, and not erased."""
    if run.get("agent_id") != agent_id:
        raise ValidationFailed(
            "runId", f"is a run of {run.get('agent_id') or 'a flow'}, not {agent_id}"
        )
    if run.get("replay_of"):
        raise ValidationFailed("runId", "is a comparison's replay, which can't be a case")
    if run.get("content_erased_at"):
        raise Gone(f"Run {run['id']}'s content was erased.", code="run-erased", runId=run["id"])
    if run["status"] not in TERMINAL or run.get("output") is None:
        raise Conflict(
            f"Run {run['id']} is {run['status']} and has no output to expect things of yet.",
            code="run-not-finished",
            runId=run["id"],
        )


def _check_tools(ctx: Context, run: dict[str, Any], decisions: dict[str, Any]) -> None:
    """400 when `shouldCall` names a tool the run's agent version doesn't have."""
    agent = catalog.get_agent(ctx, run["agent_id"], run["agent_version"])
    known = {ref["id"] for ref in agent.get("tools") or []}
    for index, call in enumerate(decisions.get("shouldCall") or []):
        if call["toolId"] not in known:
            raise ValidationFailed(
                f"decisions/shouldCall/{index}/toolId",
                f"{call['toolId']} is not a tool of {run['agent_id']}@{run['agent_version']}",
            )


def retire_case(ctx: Context, agent_id: str, case_id: str, reason: str) -> dict[str, Any]:
    """Retire a case with a reason; kept, never un-retired, its correction left as it is."""
    reason = reason.strip()
    if not reason:
        raise ValidationFailed("reason", "is required: why the case no longer applies")
    catalog.get_agent(ctx, agent_id)
    with ctx.db.transaction():
        case = find_case(ctx, agent_id, case_id)
        if case.get("retired"):
            raise Conflict(
                f"Case {case_id} was retired already: {case['retired']['reason']}",
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


def find_case(ctx: Context, agent_id: str, case_id: str) -> dict[str, Any]:
    """One case of the agent's set (retired or not); 404 `test-case-not-found` saying why."""
    if case_id.startswith(rules.HAND_CASE_PREFIX):
        row = store.hand_case(ctx.db, case_id)
        if row is None or row["agent_id"] != agent_id or row["tenant_id"] != ctx.tenant_id:
            raise _no_case(case_id, agent_id)
        return rules.with_retirement(rules.case_of("hand", row, row["items"] or []), row)
    facts = store.correction_facts(ctx.db, case_id)
    if facts is None or facts["tenant_id"] != ctx.tenant_id:
        raise _no_case(case_id, agent_id)
    if facts["subject_kind"] != "agent" or facts["subject_id"] != agent_id:
        raise _no_case(case_id, agent_id)
    why = rules.exclusion(facts)
    if why is not None:
        raise _no_case(case_id, agent_id, f"Correction {case_id} is not a case: {why}.")
    scope = (agent_id, facts["project_id"], ctx.tenant_id)
    rows = store.correction_cases(
        ctx.db,
        scope,
        retired="include",
        limit=None,
        after=None,
        only_id=case_id,
    )
    return _render(ctx, [("correction", rows[0])])[0]


def _no_case(case_id: str, agent_id: str, message: str | None = None) -> NotFound:
    error = NotFound("test-case", case_id, id_field="case_id")
    error.message = message or f"Agent {agent_id}'s test set has no case {case_id}."
    error.args = (error.message,)
    return error


def freeze(ctx: Context, agent_id: str, project_id: str | None) -> dict[str, Any]:
    """Store the set's active cases as they are now as version `N.0.0`; `{testSetId, version}`."""
    scope = scope_of(ctx, agent_id, project_id)
    set_id = rules.set_id_of(scope[0], scope[1])
    with ctx.db.transaction():
        cases = _render(
            ctx, _rows(ctx, scope, rules.CASE_KINDS, retired="exclude", limit=None, after=None)
        )
        cases = [_with_run(ctx, case) for case in cases]
        version = store.last_version(ctx.db, set_id) + 1
        meta = {
            "test_set_id": set_id,
            "version": version,
            "tenant_id": ctx.tenant_id,
            "agent_id": scope[0],
            "project_id": scope[1],
            "frozen_at": now_iso(),
        }
        store.insert_version(ctx.db, meta, cases)
    return {"testSetId": set_id, "version": rules.version_label(version)}


def _with_run(ctx: Context, case: dict[str, Any]) -> dict[str, Any]:
    """A frozen case with a copy of its run (`run`) and its group's weight, so it replays
    anywhere, run and group or not."""
    weight = replay_cases.class_weight(ctx, case.get("judgeClassId"))
    if weight is not None:
        case = {**case, "judgeClassWeight": weight}
    copy = replay_cases.run_copy(ctx, case["runId"])
    return case if copy is None else {**case, "run": copy}


def frozen_page(
    ctx: Context, test_set_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[Any]:
    """A page of a frozen version's cases (`N.0.0`), as they were when it was frozen."""
    number = rules.version_number(version)
    if number is None or not any(
        v["version"] == number for v in store.versions(ctx.db, test_set_id)
    ):
        raise NotFound("test-set-version", f"{test_set_id}@{version}", id_field="test_set_id")
    size = clamp_limit(limit)
    after = offset_of(cursor) - 1
    rows = store.version_cases(ctx.db, test_set_id, number, after=after, limit=size + 1)
    page = make_page(rows, size, lambda row: [row[0] + 1])
    return page.map(lambda pair: pair[1])


def frozen_cases(ctx: Context, test_set_id: str, version: str) -> Iterator[Any]:
    """Every case of a frozen version, in stored order."""
    cursor = None
    while True:
        page = frozen_page(ctx, test_set_id, version, limit=100, cursor=cursor)
        yield from page.items
        if not page.has_more:
            return
        cursor = page.next_cursor


def frozen_versions(ctx: Context, test_set_id: str) -> list[dict[str, Any]]:
    """Every frozen version of a set: version, caseCount, frozenAt; oldest first."""
    return [
        {
            "version": rules.version_label(v["version"]),
            "caseCount": v["case_count"],
            "frozenAt": v["frozen_at"],
        }
        for v in store.versions(ctx.db, test_set_id)
        if v["tenant_id"] == ctx.tenant_id
    ]


def frozen_sets(ctx: Context) -> list[dict[str, Any]]:
    """The summary of every agent test set frozen at least once (the registry's ones)."""
    return [
        summary(ctx, (a, p, ctx.tenant_id)) for a, p in store.frozen_sets(ctx.db, ctx.tenant_id)
    ]


def publish(ctx: Context, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Publish a registry entry's version; the same content again is kept (False), other 409."""
    entry = {
        "id": body["id"],
        "tenantId": body["tenantId"],
        "version": body["version"],
        "kind": body["kind"],
    }
    if body.get("description") is not None:
        entry["description"] = body["description"]
    entry["spec"] = body.get("spec")
    rules.check_entry(entry, ctx.tenant_id)
    if _agent_scope(ctx, entry["id"]) is not None:
        raise ValidationFailed("id", "names an agent's test set here, which corrections make")
    with ctx.db.transaction():
        if any(p.version == entry["version"] for p in test_set_pulls.versions(ctx, entry["id"])):
            raise Conflict(
                f'Test set "{entry["id"]}" version "{entry["version"]}" was pulled from another '
                "runtime and is read-only here: publish a new version.",
                code="version-already-exists",
                testSetId=entry["id"],
            )
        for found in store.entries(ctx.db, ctx.tenant_id, entry["id"]):
            if found["version"] != entry["version"]:
                continue
            if found == entry:
                return found, False
            raise Conflict(
                f'Test set "{entry["id"]}" version "{entry["version"]}" is already published '
                "with other content: publish a new version.",
                code="version-already-exists",
                testSetId=entry["id"],
            )
        store.insert_entry(ctx.db, entry, now_iso())
    return entry, True


def _latest_entries(ctx: Context) -> dict[str, dict[str, Any]]:
    """The highest version of each published entry, by id."""
    latest: dict[str, dict[str, Any]] = {}
    for entry in store.entries(ctx.db, ctx.tenant_id):
        known = latest.get(entry["id"])
        if known is None or version_key(entry["version"]) > version_key(known["version"]):
            latest[entry["id"]] = entry
    return latest


def list_entries(
    ctx: Context, kind: str | None, *, limit: int | None, cursor: str | None
) -> Page[dict[str, Any]]:
    """Published entries (latest each, by id); `corrections` adds the agents' sets and the
    judged suites built before."""
    shown = [e for e in _latest_entries(ctx).values() if kind is None or e["kind"] == kind]
    if kind == "corrections":
        shown += [rules.agent_set_entry(ctx.tenant_id, s) for s in frozen_sets(ctx)]
        shown += [_judged_entry(s) for s in eval_suites.judged_latest(ctx)]
        pulled = test_set_pulls.latest_each(ctx)
        shown += [test_set_pulls.entry_of(p, ctx.tenant_id) for p in pulled]
    shown.sort(key=lambda entry: entry["id"])
    return page_of(shown, limit, cursor)


def _agent_scope(ctx: Context, entry_id: str) -> Scope | None:
    """The scope an agent test set id names, when the agent and project exist."""
    parsed = rules.parse_set_id(entry_id)
    if parsed is None:
        return None
    try:
        return scope_of(ctx, parsed[0], parsed[1])
    except NotFound:
        return None


def _entry_versions(ctx: Context, entry_id: str) -> tuple[str, list[dict[str, Any]]]:
    """Where an id is ("registry", "pulled", "agent" or "judged") and its versions, oldest
    first."""
    published = store.entries(ctx.db, ctx.tenant_id, entry_id)
    if published:
        return "registry", sorted(published, key=lambda e: version_key(e["version"]))
    pulled = test_set_pulls.versions(ctx, entry_id)
    if pulled:
        return "pulled", [test_set_pulls.entry_of(p, ctx.tenant_id) for p in pulled]
    scope = _agent_scope(ctx, entry_id)
    if scope is not None:
        found = summary(ctx, scope)
        if "frozenVersion" not in found:
            raise _not_frozen(entry_id)
        entry = rules.agent_set_entry(ctx.tenant_id, found)
        return "agent", [
            {**entry, "version": v["version"], "spec": {**entry["spec"], **v}}
            for v in frozen_versions(ctx, entry_id)
        ]
    try:
        suites = eval_suites.versions(ctx, entry_id)
    except NotFound:
        raise NotFound("test-set", entry_id) from None
    judged = [_judged_entry(s) for s in suites if s.kind == "judged"]
    if not judged:
        raise NotFound("test-set", entry_id)
    return "judged", judged


def _judged_entry(suite: eval_suites.EvalSuite) -> dict[str, Any]:
    """A `judged` suite version as the registry's `corrections` entry."""
    return rules.judged_suite_entry(
        suite.id, suite.tenant_id, suite.version, suite.description, suite.spec
    )


def _not_frozen(entry_id: str) -> NotFound:
    """404 for an agent's test set no test run has frozen yet: it has no version to list."""
    error = NotFound("test-set", entry_id)
    error.message = (
        f"Test set {entry_id} has no version yet: a test run freezes it as 1.0.0. "
        "Its cases so far are read with agents.testSet.listCases."
    )
    error.args = (error.message,)
    return error


def get_entry(ctx: Context, entry_id: str) -> dict[str, Any]:
    """A registry entry's latest version, a frozen agent's test set, or a suite built before."""
    return _entry_versions(ctx, entry_id)[1][-1]


def entry_versions(
    ctx: Context, entry_id: str, *, limit: int | None, cursor: str | None
) -> Page[dict[str, Any]]:
    """An entry's versions, oldest first (an agent's set: its frozen versions)."""
    return page_of(_entry_versions(ctx, entry_id)[1], limit, cursor)


def entry_cases(
    ctx: Context, entry_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[Any]:
    """A version's cases: frozen ones, a built suite's, or a published `spec.cases`."""
    where, found = _entry_versions(ctx, entry_id)
    if where == "judged":
        return eval_suites.list_cases(ctx, entry_id, version, limit=limit, cursor=cursor)
    if where == "pulled":
        return test_set_pulls.page(ctx, entry_id, version, limit=limit, cursor=cursor)
    if where == "agent":
        return frozen_page(ctx, entry_id, version, limit=limit, cursor=cursor)
    match = [entry for entry in found if entry["version"] == version]
    if not match:
        raise NotFound("test-set-version", f"{entry_id}@{version}", id_field="test_set_id")
    cases = match[0]["spec"].get("cases")
    return page_of(cases if isinstance(cases, list) else [], limit, cursor)
