"""The `/v1/test-sets` registry: published entries, and under the `corrections` kind the
agents' frozen test sets, the versions pulled from another runtime and the judged suites
built before (looked up in that order)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..domain import test_sets as rules
from ..domain.errors import Conflict, NotFound, ValidationFailed
from ..domain.paging import Page, page_of
from ..domain.test_sets import RegistryEntry
from ..domain.time import now_iso
from ..store import test_sets as store
from . import eval_suites, test_set_pulls
from .catalog import version_key
from .context import Context
from .test_set_versions import frozen_page, frozen_sets, frozen_versions
from .test_sets import AgentTestSet, scope_of_set_id, summary


def publish(ctx: Context, entry: RegistryEntry) -> tuple[RegistryEntry, bool]:
    """Publish a registry entry's version; the same content again is kept (False), other 409."""
    rules.check_entry(entry, ctx.tenant_id)
    if scope_of_set_id(ctx, entry.id) is not None:
        raise ValidationFailed("id", "names an agent's test set here, which corrections make")
    with ctx.db.transaction():
        if any(p.version == entry.version for p in test_set_pulls.versions(ctx, entry.id)):
            raise Conflict(
                f'Test set "{entry.id}" version "{entry.version}" was pulled from another '
                "runtime and is read-only here: publish a new version.",
                code="version-already-exists",
                testSetId=entry.id,
            )
        for found in store.entries(ctx.db, ctx.tenant_id, entry.id):
            if found.version != entry.version:
                continue
            if found == entry:
                return found, False
            raise Conflict(
                f'Test set "{entry.id}" version "{entry.version}" is already published '
                "with other content: publish a new version.",
                code="version-already-exists",
                testSetId=entry.id,
            )
        store.insert_entry(ctx.db, entry, now_iso())
    return entry, True


def _latest_entries(ctx: Context) -> dict[str, RegistryEntry]:
    """The highest version of each published entry, by id."""
    latest: dict[str, RegistryEntry] = {}
    for entry in store.entries(ctx.db, ctx.tenant_id):
        known = latest.get(entry.id)
        if known is None or version_key(entry.version) > version_key(known.version):
            latest[entry.id] = entry
    return latest


def list_entries(
    ctx: Context, kind: str | None, *, limit: int | None, cursor: str | None
) -> Page[RegistryEntry]:
    """Published entries (latest each, by id); `corrections` adds the agents' sets and the
    judged suites built before."""
    shown = [e for e in _latest_entries(ctx).values() if kind is None or e.kind == kind]
    if kind == "corrections":
        shown += [_agent_entry(ctx, s) for s in frozen_sets(ctx)]
        shown += [_judged_entry(s) for s in eval_suites.judged_latest(ctx)]
        pulled = test_set_pulls.latest_each(ctx)
        shown += [test_set_pulls.entry_of(p, ctx.tenant_id) for p in pulled]
    shown.sort(key=lambda entry: entry.id)
    return page_of(shown, limit, cursor)


def _agent_entry(ctx: Context, test_set: AgentTestSet, version: str | None = None) -> RegistryEntry:
    """An agent's frozen test set as a `corrections` entry, at its newest version or `version`."""
    newest = test_set.frozen_version.version if test_set.frozen_version else ""
    return rules.agent_set_entry(
        ctx.tenant_id,
        test_set.id,
        test_set.agent_id,
        test_set.project_id,
        version or newest,
        test_set.cases,
    )


def _entry_versions(ctx: Context, entry_id: str) -> tuple[str, list[RegistryEntry]]:
    """Where an id is ("registry", "pulled", "agent" or "judged") and its versions, oldest
    first."""
    published = store.entries(ctx.db, ctx.tenant_id, entry_id)
    if published:
        return "registry", sorted(published, key=lambda e: version_key(e.version))
    pulled = test_set_pulls.versions(ctx, entry_id)
    if pulled:
        return "pulled", [test_set_pulls.entry_of(p, ctx.tenant_id) for p in pulled]
    scope = scope_of_set_id(ctx, entry_id)
    if scope is not None:
        found = summary(ctx, scope)
        if found.frozen_version is None:
            raise _not_frozen(entry_id)
        versions = []
        for frozen in frozen_versions(ctx, entry_id):
            entry = _agent_entry(ctx, found, frozen.version)
            spec = {
                **entry.spec,
                "version": frozen.version,
                "caseCount": frozen.case_count,
                "frozenAt": frozen.frozen_at,
            }
            versions.append(replace(entry, spec=spec))
        return "agent", versions
    try:
        suites = eval_suites.versions(ctx, entry_id)
    except NotFound:
        raise NotFound("test-set", entry_id) from None
    judged = [_judged_entry(s) for s in suites if s.kind == "judged"]
    if not judged:
        raise NotFound("test-set", entry_id)
    return "judged", judged


def _judged_entry(suite: eval_suites.EvalSuite) -> RegistryEntry:
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


def get_entry(ctx: Context, entry_id: str) -> RegistryEntry:
    """A registry entry's latest version, a frozen agent's test set, or a suite built before."""
    return _entry_versions(ctx, entry_id)[1][-1]


def entry_version(ctx: Context, entry_id: str, version: str) -> RegistryEntry:
    """One version of an entry (a frozen agent's set, a pulled one, a suite built before, a
    published entry); 404 `test-set-version-not-found`."""
    for entry in _entry_versions(ctx, entry_id)[1]:
        if entry.version == version:
            return entry
    raise NotFound("test-set-version", f"{entry_id}@{version}", id_field="test_set_id")


def entry_versions(
    ctx: Context, entry_id: str, *, limit: int | None, cursor: str | None
) -> Page[RegistryEntry]:
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
    match = [entry for entry in found if entry.version == version]
    if not match:
        raise NotFound("test-set-version", f"{entry_id}@{version}", id_field="test_set_id")
    cases = match[0].spec.get("cases")
    return page_of(cases if isinstance(cases, list) else [], limit, cursor)
