"""An agent's test set frozen as versions (`N.0.0`): freezing its active cases with a copy
of each case's run, and reading a frozen version's cases, as a test run checks them."""

from __future__ import annotations

from dataclasses import dataclass

from ..domain import test_sets as rules
from ..domain.errors import NotFound
from ..domain.eval_runs import FrozenVersion
from ..domain.json import JSONObject
from ..domain.paging import Page, clamp_limit, make_page, offset_of
from ..domain.stored_cases import FreezingCase
from ..domain.time import now_iso
from ..store import test_sets as store
from . import replay_cases
from .context import Context
from .test_sets import AgentTestSet, case_rows, render_cases, scope_of, summary

FREEZE_PAGE = 50
"""Cases rendered and stored at a time while freezing: a large set is never all in memory,
and a page is small enough not to grow the process for good (see `replay_cases.PAGE`)."""


@dataclass(frozen=True)
class FrozenInfo:
    """A frozen version of a set: its label (`N.0.0`), how many cases, and when."""

    version: str
    case_count: int
    frozen_at: str


def freeze(ctx: Context, agent_id: str, project_id: str | None) -> FrozenVersion:
    """Store the set's active cases as they are now as version `N.0.0`."""
    scope = scope_of(ctx, agent_id, project_id)
    set_id = rules.set_id_of(scope[0], scope[1])
    with ctx.db.transaction():
        version = store.last_version(ctx.db, set_id) + 1
        count, after = 0, None
        while True:
            rows = case_rows(
                ctx, scope, rules.CASE_KINDS, retired="exclude", limit=FREEZE_PAGE, after=after
            )
            cases = [_with_run(ctx, case) for case in render_cases(ctx, rows)]
            store.insert_version_cases(ctx.db, set_id, version, count, cases)
            count += len(cases)
            if len(rows) < FREEZE_PAGE:
                break
            after = [rows[-1][1].created_at, rows[-1][1].id]
        meta = store.FrozenVersionRow(
            test_set_id=set_id,
            version=version,
            tenant_id=ctx.tenant_id,
            agent_id=scope[0],
            project_id=scope[1],
            case_count=count,
            frozen_at=now_iso(),
        )
        store.insert_version(ctx.db, meta)
    return FrozenVersion(set_id, rules.version_label(version))


def _with_run(ctx: Context, case: rules.TestCase) -> FreezingCase:
    """A case to freeze with its group's weight and a copy of its run."""
    weight = replay_cases.class_weight(ctx, case.judge_class_id)
    return FreezingCase(case, weight, replay_cases.run_copy(ctx, case.run_id))


def frozen_page(
    ctx: Context, test_set_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[JSONObject]:
    """A page of a frozen version's cases (`N.0.0`), as they were when it was frozen."""
    found = frozen_row(ctx, test_set_id, version)
    if found is None:
        raise NotFound("test-set-version", f"{test_set_id}@{version}", id_field="test_set_id")
    size = clamp_limit(limit)
    after = offset_of(cursor) - 1
    rows = store.version_cases(ctx.db, test_set_id, found.version, after=after, limit=size + 1)
    page = make_page(rows, size, lambda row: [row[0] + 1])
    return page.map(lambda pair: pair[1])


def frozen_row(ctx: Context, test_set_id: str, version: str) -> store.FrozenVersionRow | None:
    """A frozen version made here, as stored, by its label (`N.0.0`); None for any other."""
    number = rules.version_number(version)
    return next(
        (
            v
            for v in store.versions(ctx.db, test_set_id)
            if v.version == number and v.tenant_id == ctx.tenant_id
        ),
        None,
    )


def frozen_versions(ctx: Context, test_set_id: str) -> list[FrozenInfo]:
    """Every frozen version of a set, oldest first."""
    return [
        FrozenInfo(rules.version_label(v.version), v.case_count, v.frozen_at)
        for v in store.versions(ctx.db, test_set_id)
        if v.tenant_id == ctx.tenant_id
    ]


def frozen_sets(ctx: Context) -> list[AgentTestSet]:
    """The summary of every agent test set frozen at least once (the registry's ones)."""
    return [
        summary(ctx, (a, p, ctx.tenant_id)) for a, p in store.frozen_sets(ctx.db, ctx.tenant_id)
    ]
