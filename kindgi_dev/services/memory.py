"""Memory facts: written by an app or a person, remembered by an agent in a live run, read,
superseded, verified, deleted and retrieved, as the 0.1.10 client describes them.

Reads return the current revision of each fact the caller may see that hasn't expired;
`asOf` reads memory as it stood then. Every change writes a revision and keeps the old one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..domain import facts as rules
from ..domain.errors import BadInput, Conflict, NotFound, Unprocessable
from ..domain.facts import Fact, FactAttribution, FactSubject, Retention
from ..domain.paging import Page, clamp_limit, encode_cursor, whole_after
from ..domain.time import now_iso
from ..store import facts as store
from ..store.facts import FactFilter
from .context import Context

BATCH = 200
"""Revisions read at a time while a page is filled (some are filtered out above the store)."""


@dataclass(frozen=True)
class FactDraft:
    """A fact as an app writes it, or a supersede's next content (its scope and type stay)."""

    content: Any
    type: str = ""
    scope: dict[str, Any] | None = None
    retention: Retention | None = None
    subjects: tuple[FactSubject, ...] | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    observed_at: str | None = None


@dataclass(frozen=True)
class FactQuery:
    """What `memory.listFacts` narrows to."""

    type: str | None = None
    scope: dict[str, Any] | None = None
    scope_kind: str | None = None
    scope_id: str | None = None
    inherit: bool = True
    as_of: str | None = None


def principal(ctx: Context) -> str:
    """The caller as facts name a writer: `user:<id>`."""
    return f"{ctx.caller.kind}:{ctx.caller.id}"


def _admin(ctx: Context) -> bool:
    """Whether the caller is the tenant's admin (the instance's own token is)."""
    return getattr(ctx.caller, "role", "admin") == "admin"


def write(ctx: Context, draft: FactDraft) -> Fact:
    """A new fact, `asserted` by the caller; 400 for a scope outside this tenant."""
    scope = dict(draft.scope or {})
    rules.check_scope(scope, ctx.tenant_id)
    now = now_iso()
    fact = new_fact(draft, draft.type, scope, now, FactAttribution(ctx.caller.kind, ctx.caller.id))
    store.insert(ctx.db, ctx.tenant_id, fact)
    return fact


def new_fact(
    draft: FactDraft, kind: str, scope: dict[str, Any], at: str, who: FactAttribution
) -> Fact:
    """Version 1 of a fact, `asserted` unless the caller changes it."""
    return Fact(
        id=str(uuid.uuid4()),
        version=1,
        type=kind,
        scope=scope,
        created_at=at,
        updated_at=at,
        content=draft.content,
        content_hash=rules.hash_of(draft.content),
        size=len(rules.canonical(draft.content)),
        trust="asserted",
        retention=draft.retention,
        subjects=draft.subjects,
        attributed_to=who,
        valid_from=draft.valid_from,
        valid_until=draft.valid_until,
        observed_at=draft.observed_at,
        expires_at=rules.expiry(at, draft.retention, None),
    )


def get(ctx: Context, fact_id: str, *, version: int | None, as_of: str | None) -> Fact:
    """The current revision, one by `version`, or the one current `as_of`; 404 otherwise."""
    if version is None and as_of is None:
        found = store.current(ctx.db, ctx.tenant_id, fact_id)
        if found is not None and rules.readable(found, now_iso()) and _sees(ctx, found):
            return found
        raise NotFound("fact", fact_id)
    history = _history(ctx, fact_id)
    chosen = (
        next((f for f in history if f.version == version), None)
        if version is not None
        else rules.as_of(history, str(as_of))
    )
    if chosen is None:
        raise NotFound("fact", fact_id)
    return chosen


def revisions(ctx: Context, fact_id: str) -> list[Fact]:
    """Every revision, newest first; 404 for a fact the caller doesn't see."""
    return _history(ctx, fact_id)


def _history(ctx: Context, fact_id: str) -> list[Fact]:
    history = store.revisions(ctx.db, ctx.tenant_id, fact_id)
    if not history or not _sees(ctx, history[0]):
        raise NotFound("fact", fact_id)
    return history


def _sees(ctx: Context, fact: Fact) -> bool:
    return rules.visible_to(fact, ctx.caller.id, admin=_admin(ctx))


def _current(ctx: Context, fact_id: str, expect_version: int | None) -> Fact:
    """The current revision to change; 409 `fact-changed` when it isn't `expect_version`."""
    found = get(ctx, fact_id, version=None, as_of=None)
    if expect_version is not None and found.version != expect_version:
        raise Conflict(
            f"Fact {fact_id} is at version {found.version}, not {expect_version}.",
            code="fact-changed",
            factId=fact_id,
            version=found.version,
        )
    return found


def delete(ctx: Context, fact_id: str, expect_version: int | None) -> Fact:
    """Close the current revision (`deleted`): no read finds the fact; its history stays."""
    with ctx.db.transaction():
        found = _current(ctx, fact_id, expect_version)
        now = now_iso()
        store.close(ctx.db, fact_id, found.version, now, principal(ctx), "deleted")
    return replace(
        found, invalidated_at=now, invalidated_by=principal(ctx), invalidation_reason="deleted"
    )


def supersede(ctx: Context, fact_id: str, draft: FactDraft, expect_version: int | None) -> Fact:
    """The next revision with new content (and the times, retention, subjects given)."""
    with ctx.db.transaction():
        found = _current(ctx, fact_id, expect_version)
        now = now_iso()
        retention = draft.retention if draft.retention is not None else found.retention
        changes: dict[str, Any] = {
            "content": draft.content,
            "content_hash": rules.hash_of(draft.content),
            "size": len(rules.canonical(draft.content)),
            "trust": "asserted",
            "attributed_to": FactAttribution(ctx.caller.kind, ctx.caller.id),
            "generated_by": None,
            "retention": retention,
            "expires_at": rules.expiry(now, retention, None),
            "review": None,
        }
        for name in ("subjects", "valid_from", "valid_until", "observed_at"):
            if getattr(draft, name) is not None:
                changes[name] = getattr(draft, name)
        return _replace_current(ctx, found, now, "superseded", changes)


def verify(ctx: Context, fact_id: str, expect_version: int | None) -> Fact:
    """The next revision, `verified` by the caller, same content; no unverified expiry."""
    with ctx.db.transaction():
        found = _current(ctx, fact_id, expect_version)
        now = now_iso()
        changes = {
            "trust": "verified",
            "verified_by": principal(ctx),
            "verified_at": now,
            "review": None,
            "expires_at": rules.expiry(found.created_at, found.retention, None),
        }
        return _replace_current(ctx, found, now, "superseded", changes)


def _replace_current(
    ctx: Context, found: Fact, now: str, reason: str, changes: dict[str, Any]
) -> Fact:
    store.close(ctx.db, found.id, found.version, now, principal(ctx), reason)
    following = rules.next_revision(replace(found, **changes), str(uuid.uuid4()), now)
    store.insert(ctx.db, ctx.tenant_id, following)
    return following


def list_page(
    ctx: Context, query: FactQuery, *, limit: int | None, cursor: str | None
) -> Page[Fact]:
    """A page of the facts the caller sees, newest first, as they are (or stood `asOf`)."""
    filters = _filters(query)
    now = now_iso()

    def keep(fact: Fact) -> bool:
        partial = query.scope or {}
        return (
            _sees(ctx, fact)
            and rules.matches(fact.scope, partial)
            and (query.as_of is not None or rules.readable(fact, now))
        )

    if query.as_of is None:
        return _paged(
            lambda after, size: store.list_current(
                ctx.db, ctx.tenant_id, filters, after=after, limit=size
            ),
            keep,
            limit,
            cursor,
        )
    stood = _stood(ctx, filters, str(query.as_of))
    return _paged(
        lambda after, size: [p for p in stood if after is None or p[0] < after][:size],
        keep,
        limit,
        cursor,
    )


def _filters(query: FactQuery) -> FactFilter:
    """`scopeKind`/`scopeId`/`inherit` as the store's filter; 400 `scope-invalid`."""
    kind, ident = query.scope_kind, query.scope_id
    if (kind is None or kind == "tenant") and ident is not None:
        raise BadInput("scopeId needs scopeKind=org or project.", code="scope-invalid")
    if kind in ("org", "project") and not ident:
        raise BadInput(f"scopeKind={kind} needs scopeId.", code="scope-invalid")
    if kind == "tenant":
        return FactFilter(type=query.type, tenant_wide_only=True)
    if kind == "project":
        return FactFilter(type=query.type, project_id=ident, with_tenant_wide=query.inherit)
    if kind == "org":  # kindgi dev has no organisations: no fact is an org's
        return FactFilter(type=query.type, project_id="", with_tenant_wide=query.inherit)
    return FactFilter(type=query.type)


def _stood(ctx: Context, filters: FactFilter, moment: str) -> list[tuple[int, Fact]]:
    """Each fact's revision current at `moment`, newest first (by that revision's place)."""
    found: list[tuple[int, Fact]] = []
    after = None
    while True:
        batch = store.list_current(
            ctx.db, ctx.tenant_id, filters, after=after, limit=BATCH, any_revision=True
        )
        found.extend(batch)
        if len(batch) < BATCH:
            break
        after = batch[-1][0]
    by_fact: dict[str, list[tuple[int, Fact]]] = {}
    for seq, fact in found:
        by_fact.setdefault(fact.id, []).append((seq, fact))
    stood = []
    for revisions_of in by_fact.values():
        chosen = rules.as_of((f for _, f in revisions_of), moment)
        if chosen is not None:
            stood.append(next(p for p in revisions_of if p[1] is chosen))
    return sorted(stood, key=lambda p: p[0], reverse=True)


def _paged(
    fetch: Callable[[int | None, int], Sequence[tuple[int, Fact]]],
    keep: Callable[[Fact], bool],
    limit: int | None,
    cursor: str | None,
) -> Page[Fact]:
    """Fill a page from positioned revisions, filtering each batch, with a keyset cursor."""
    size = clamp_limit(limit)
    after = whole_after(cursor)
    kept: list[tuple[int, Fact]] = []
    while len(kept) <= size:
        batch = fetch(after, BATCH)
        kept.extend(p for p in batch if keep(p[1]))
        if len(batch) < BATCH:
            break
        after = batch[-1][0]
    more = len(kept) > size
    shown = kept[:size]
    next_cursor = encode_cursor([shown[-1][0]]) if more and shown else None
    return Page([fact for _, fact in shown], more, next_cursor)


def retrieve(
    ctx: Context,
    *,
    mode: str,
    query: str | None,
    type: str | None,
    scope: dict[str, Any] | None,
    limit: int | None,
) -> list[tuple[Fact, float | None]]:
    """Current facts by intent: `list` newest first, `keyword` by the words they share
    with the query. By meaning needs embeddings, which kindgi dev has none of: 422."""
    if mode in ("semantic", "both"):
        raise Unprocessable(
            "kindgi dev has no embeddings, so it can't search by meaning: use mode keyword.",
            code="semantic-unavailable",
        )
    if mode == "keyword" and not (query or "").strip():
        raise BadInput("query: is required for mode keyword.", field="query")
    now = now_iso()
    wanted = clamp_limit(limit)
    found: list[tuple[Fact, float | None]] = []
    after = None
    while True:
        batch = store.list_current(
            ctx.db, ctx.tenant_id, FactFilter(type=type), after=after, limit=BATCH
        )
        for _, fact in batch:
            if fact.review == "pending" or not rules.readable(fact, now) or not _sees(ctx, fact):
                continue
            if not rules.matches(fact.scope, scope or {}):
                continue
            score = None if mode == "list" else rules.keyword_score(str(query), fact.content)
            if score is None or score > 0:
                found.append((fact, score))
        if len(batch) < BATCH or (mode == "list" and len(found) >= wanted):
            break
        after = batch[-1][0]
    if mode == "keyword":
        found.sort(key=lambda hit: hit[1] or 0.0, reverse=True)
    return found[:wanted]
