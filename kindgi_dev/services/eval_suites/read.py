"""Reading eval suites: the latest version of each, one version, a suite's versions, cases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...domain.errors import NotFound
from ...domain.json import JSONObject
from ...domain.paging import Page, clamp_limit, make_page, offset_of, page_of
from ...store import eval_suites as store
from ...store.eval_suites import SuiteVersionRow
from .. import projects
from ..catalog import version_key
from ..context import Context


@dataclass(frozen=True)
class EvalSuite:
    """One version of an eval suite: its kind, its spec, and whether it is tombstoned."""

    id: str
    tenant_id: str
    version: str
    kind: str
    spec: dict[str, Any]
    project_id: str | None = None
    description: str | None = None
    unregistered_at: str | None = None


def suite_of(row: SuiteVersionRow) -> EvalSuite:
    """A stored version as its record."""
    return EvalSuite(
        id=row.id,
        tenant_id=row.tenant_id,
        version=row.version,
        kind=row.kind,
        spec=row.spec,
        project_id=row.project_id or None,
        description=row.description,
        unregistered_at=row.unregistered_at or None,
    )


def _latest(rows: Sequence[SuiteVersionRow], include_retired: bool) -> SuiteVersionRow | None:
    """The highest active version, or (when asked) the highest of a retired suite."""
    active = [row for row in rows if not row.unregistered_at]
    pool = active or (list(rows) if include_retired else [])
    return max(pool, key=lambda row: version_key(row.version)) if pool else None


def _latest_suites(
    ctx: Context,
    *,
    kind: str | None = None,
    name: str | None = None,
    project_id: str | None = None,
    include_retired: bool = False,
) -> list[EvalSuite]:
    """The latest version of each suite, by id, filtered on that version."""
    by_id: dict[str, list[SuiteVersionRow]] = defaultdict(list)
    for row in store.all_versions(ctx.db, ctx.tenant_id):
        by_id[row.id].append(row)
    shown = []
    for suite_id in sorted(by_id):
        latest = _latest(by_id[suite_id], include_retired)
        if latest is None or (kind and latest.kind != kind):
            continue
        if (name and not suite_id.startswith(name)) or (
            project_id and latest.project_id != project_id
        ):
            continue
        shown.append(suite_of(latest))
    return shown


def list_suites(
    ctx: Context,
    *,
    kind: str | None = None,
    name: str | None = None,
    project_id: str | None = None,
    include_retired: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[EvalSuite]:
    """A page of the latest version of each suite, by id."""
    shown = _latest_suites(
        ctx, kind=kind, name=name, project_id=project_id, include_retired=include_retired
    )
    return page_of(shown, limit, cursor)


def get(ctx: Context, suite_id: str, project_id: str | None = None) -> EvalSuite:
    """The latest active version; 404 when none (or none in the project asked about, or
    that project is none of this tenant's)."""
    if project_id is not None:
        projects.get(ctx, project_id)
    latest = _latest(store.versions_of(ctx.db, ctx.tenant_id, suite_id), False)
    if latest is None or (project_id and latest.project_id not in (None, project_id)):
        raise NotFound("eval-suite", suite_id, id_field="suite_id")
    return suite_of(latest)


def get_version(ctx: Context, suite_id: str, version: str) -> EvalSuite:
    """One version, tombstoned or not; 404 `eval-suite-not-found`."""
    row = store.get_version(ctx.db, suite_id, version)
    if row is None or row.tenant_id != ctx.tenant_id:
        error = NotFound("eval-suite", suite_id, id_field="suite_id")
        error.message = f'Eval suite "{suite_id}" has no version "{version}".'
        error.args = (error.message,)
        raise error
    return suite_of(row)


def exists(ctx: Context, suite_id: str) -> bool:
    """Whether the tenant has a suite with this id (any version, tombstoned or not)."""
    return bool(store.versions_of(ctx.db, ctx.tenant_id, suite_id))


def versions(ctx: Context, suite_id: str, include_tombstoned: bool = False) -> list[EvalSuite]:
    """A suite's versions in ascending semver; tombstoned ones only when asked; 404 if none."""
    rows = store.versions_of(ctx.db, ctx.tenant_id, suite_id)
    if not rows:
        raise NotFound("eval-suite", suite_id, id_field="suite_id")
    shown = [row for row in rows if include_tombstoned or not row.unregistered_at]
    shown.sort(key=lambda row: version_key(row.version))
    return [suite_of(row) for row in shown]


def list_versions(
    ctx: Context,
    suite_id: str,
    *,
    include_tombstoned: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[EvalSuite]:
    """A page of a suite's versions in ascending semver."""
    return page_of(versions(ctx, suite_id, include_tombstoned), limit, cursor)


def list_cases(
    ctx: Context, suite_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[JSONObject]:
    """A version's cases in stored order (a judged one's newest first judged first)."""
    get_version(ctx, suite_id, version)
    size = clamp_limit(limit)
    rows = store.case_page(ctx.db, suite_id, version, after=offset_of(cursor) - 1, limit=size + 1)
    page = make_page(rows, size, lambda row: [row[0] + 1])
    return page.map(lambda pair: pair[1])


def all_cases(ctx: Context, suite_id: str, version: str) -> Iterator[JSONObject]:
    """Every case of a version, in stored order, a page at a time."""
    cursor = None
    while True:
        page = list_cases(ctx, suite_id, version, limit=100, cursor=cursor)
        yield from page.items
        if not page.has_more:
            return
        cursor = page.next_cursor


def judged_latest(ctx: Context) -> list[EvalSuite]:
    """The latest active version of each `judged` suite (the test sets built before)."""
    return _latest_suites(ctx, kind="judged")
