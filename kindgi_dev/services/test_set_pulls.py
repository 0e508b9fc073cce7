"""Pulling a test-set version from another Kindgi runtime: stored here as the same id and
version, read-only, marked with where it came from; and reading pulled versions back.

Every case is read before anything is written, then the version is stored in one
transaction, so a pull that fails half-way leaves nothing. A case holding what no answer
renders (a weight beyond the bounds, nesting too deep: another runtime may be older) is
kept repaired, as `m0029` repairs stored ones (an imported file's too); its digest is of
what arrived. The remote token is used for this one pull and kept nowhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..domain import test_set_files
from ..domain.errors import Conflict, NotFound, RemoteFailed, ValidationFailed
from ..domain.json import JSONObject
from ..domain.paging import Page, clamp_limit, make_page, offset_of
from ..domain.semver import is_semver
from ..domain.stored_values import (
    FROZEN_CASE,
    may_need_repair_plain,
    may_need_repair_written,
    repaired,
)
from ..domain.test_sets import RegistryEntry
from ..domain.time import now_iso
from ..remote import BadToken, OnProgress, Remote, RemoteError, UnsafeUrl
from ..store import eval_suites as suite_store
from ..store import pulled_test_sets as store
from ..store import test_sets as local_store
from . import test_set_versions, test_sets
from .catalog import version_key
from .context import Context

if TYPE_CHECKING:
    import httpx

FILE = "file:"
"""How an imported version's source starts: `file:<the name it was imported as>`."""


@dataclass(frozen=True)
class Source:
    """Where a pulled version came from, and when."""

    url: str
    pulled_at: str


@dataclass(frozen=True)
class PulledVersion:
    """A pulled version: `pulled` is False when the same content was here already."""

    test_set_id: str
    version: str
    case_count: int
    source: Source
    pulled: bool


def _record(row: store.PulledRow, pulled: bool) -> PulledVersion:
    return PulledVersion(
        row.test_set_id, row.version, row.case_count, Source(row.source_url, row.pulled_at), pulled
    )


def _check_names(test_set_id: str, version: str) -> None:
    if not test_set_files.ID.fullmatch(test_set_id):
        raise ValidationFailed("testSetId", "must be letters, digits, '.', '_', '~' or '-'")
    if not is_semver(version):
        raise ValidationFailed("version", f"must be a semver such as 1.0.0, not {version!r}")


def _refuse_local(ctx: Context, test_set_id: str, version: str) -> None:
    """409 when the id names a test set made here, whatever the version: an agent's test set
    (frozen yet or not), an entry published here or a suite built here. A version pulled or
    imported under it hid that set's own versions from its reads (they answered 404), and a
    later freeze made a second content under one id and version."""
    if (
        local_store.entries(ctx.db, ctx.tenant_id, test_set_id)
        or test_set_versions.frozen_versions(ctx, test_set_id)
        or suite_store.versions_of(ctx.db, ctx.tenant_id, test_set_id)
        or test_sets.scope_of_set_id(ctx, test_set_id) is not None
    ):
        raise Conflict(
            f'Test set "{test_set_id}" was made here, so no version "{version}" is pulled or '
            "imported under its id.",
            code="version-already-exists",
            testSetId=test_set_id,
        )


def _remote(
    source_url: str, token: str | None, insecure: bool, transport: httpx.AsyncBaseTransport | None
) -> Remote:
    try:
        return Remote(source_url, token, insecure=insecure, transport=transport)
    except UnsafeUrl as error:
        raise ValidationFailed("from", str(error)) from None
    except BadToken as error:
        raise ValidationFailed("token", str(error)) from None


async def pull(
    ctx: Context,
    test_set_id: str,
    version: str,
    source_url: str,
    token: str | None,
    *,
    insecure: bool = False,
    transport: httpx.AsyncBaseTransport | None = None,
    on_progress: OnProgress | None = None,
) -> PulledVersion:
    """Read a version's cases from the remote and store them; the same content again is a
    no-op, other content under a pulled id and version is `409` and writes nothing, and a
    case of a shape no replay reads (`check_cases`) is `502`, as the remote's mistake."""
    _check_names(test_set_id, version)
    remote = _remote(source_url, token, insecure, transport)
    _refuse_local(ctx, test_set_id, version)
    async with remote:
        try:
            cases = await remote.version_cases(test_set_id, version, on_progress)
        except RemoteError as error:
            raise RemoteFailed(
                str(error),
                url=error.url,
                remoteStatus=error.status or None,
                remoteCode=error.code,
                remoteMessage=error.message,
            ) from None
    objects = [case for case in cases if isinstance(case, dict)]
    if len(objects) != len(cases):
        raise RemoteFailed(f"{remote.url} answered cases that aren't JSON objects.", url=remote.url)
    try:
        test_set_files.check_cases(objects)
    except ValidationFailed as error:
        raise RemoteFailed(
            f"{remote.url} answered a case this runtime can't replay: {error.message}",
            url=remote.url,
            field=error.details["field"],
        ) from None
    return store_version(ctx, test_set_id, version, objects, remote.url)


def store_version(
    ctx: Context,
    test_set_id: str,
    version: str,
    cases: list[JSONObject],
    source_url: str,
    canonical: test_set_files.Canonical | None = None,
) -> PulledVersion:
    """Keep a version from elsewhere read-only, as a pull does: the same content again is a
    no-op (`pulled` False), other content under that id and version, or a version made
    here, is `409` and writes nothing. `canonical` is the cases' when known (a file's
    import wrote them for its digest)."""
    _check_names(test_set_id, version)
    canonical = canonical or test_set_files.Canonical.of(cases)
    digest = canonical.digest
    bodies = [
        _kept(case, text, plain)
        for case, text, plain in zip(cases, canonical.texts, canonical.plain, strict=True)
    ]
    with ctx.db.transaction():
        found = store.find(ctx.db, ctx.tenant_id, test_set_id, version)
        if found is not None:
            if found.digest == digest:
                return _record(found, pulled=False)
            raise Conflict(
                f'Test set "{test_set_id}" version "{version}" came from '
                f"{found.source_url} with other content; a version never changes, so nothing "
                "was written.",
                code="version-already-exists",
                testSetId=test_set_id,
            )
        _refuse_local(ctx, test_set_id, version)
        row = store.PulledRow(
            test_set_id, version, ctx.tenant_id, len(cases), digest, source_url, now_iso()
        )
        store.insert(ctx.db, row, bodies)
    return _record(row, pulled=True)


def _kept(case: JSONObject, text: str, plain: bool) -> str:
    """A case's stored text: its `case_text`, repaired first as m0029 repairs stored ones
    when the text says it may need it (most cases are read no further; a plain one's,
    `plain_case_text`, is not searched for what its writing ruled out)."""
    if not (may_need_repair_plain if plain else may_need_repair_written)(text, FROZEN_CASE):
        return text
    return test_set_files.case_text(repaired(case, FROZEN_CASE))


def versions(ctx: Context, test_set_id: str) -> list[PulledVersion]:
    """The pulled versions of an id, lowest semver first."""
    rows = store.versions(ctx.db, ctx.tenant_id, test_set_id)
    rows.sort(key=lambda row: version_key(row.version))
    return [_record(row, pulled=True) for row in rows]


def latest_each(ctx: Context) -> list[PulledVersion]:
    """The highest pulled version of every pulled id."""
    latest: dict[str, store.PulledRow] = {}
    for row in store.versions(ctx.db, ctx.tenant_id):
        known = latest.get(row.test_set_id)
        if known is None or version_key(row.version) > version_key(known.version):
            latest[row.test_set_id] = row
    return [_record(row, pulled=True) for row in latest.values()]


def entry_of(found: PulledVersion, tenant_id: str) -> RegistryEntry:
    """A pulled version as a `corrections` registry entry, `spec.source` saying whence."""
    return RegistryEntry(
        id=found.test_set_id,
        tenant_id=tenant_id,
        version=found.version,
        kind="corrections",
        description=f"{'Imported' if found.source.url.startswith(FILE) else 'Pulled'} from "
        f"{found.source.url}.",
        spec={
            "source": {"url": found.source.url, "pulledAt": found.source.pulled_at},
            "caseCount": found.case_count,
        },
    )


def page(
    ctx: Context, test_set_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[JSONObject]:
    """A page of a pulled version's cases, in the order pulled."""
    if store.find(ctx.db, ctx.tenant_id, test_set_id, version) is None:
        raise NotFound("test-set-version", f"{test_set_id}@{version}", id_field="test_set_id")
    size = clamp_limit(limit)
    after = offset_of(cursor) - 1
    rows = store.cases(ctx.db, test_set_id, version, after=after, limit=size + 1)
    return make_page(rows, size, lambda row: [row[0] + 1]).map(lambda pair: pair[1])


def all_cases(ctx: Context, test_set_id: str, version: str) -> Iterator[JSONObject]:
    """Every case of a pulled version, in the order pulled."""
    cursor = None
    while True:
        found = page(ctx, test_set_id, version, limit=100, cursor=cursor)
        yield from found.items
        if not found.has_more:
            return
        cursor = found.next_cursor
