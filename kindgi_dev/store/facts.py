"""Memory facts, every revision a row: the columns reads filter by, the rest as one JSON body."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

from ..domain.facts import Fact, FactAttribution, FactGeneratedBy, FactSubject, Retention
from ..domain.json import JSONObject
from .db import Database
from .jsoncol import Codec, dump, load, load_object
from .query import SQLValue, Where, chunks, marks

_COLUMNS = (
    "seq, revision_id, fact_id, version, tenant_id, type, scope, content, content_hash, body, "
    "created_at, expires_at, invalidated_at, invalidated_by, invalidation_reason"
)


class _Retention(TypedDict, total=False):
    keepUntil: str | None
    keepDays: int | None
    legalHold: bool | None


class _Subject(TypedDict):
    kind: str
    id: str


class _Attribution(TypedDict):
    kind: str
    id: str
    agentVersion: NotRequired[str | None]


class _Generated(TypedDict):
    runId: str
    toolCallId: NotRequired[str | None]


class _Body(TypedDict):
    """A revision's `body` column: what it keeps beside its columns, in the wire's names."""

    size: int
    trust: str
    updatedAt: NotRequired[str | None]
    validFrom: NotRequired[str | None]
    validUntil: NotRequired[str | None]
    observedAt: NotRequired[str | None]
    verifiedBy: NotRequired[str | None]
    verifiedAt: NotRequired[str | None]
    supersedes: NotRequired[str | None]
    review: NotRequired[str | None]
    retention: NotRequired[_Retention | None]
    subjects: NotRequired[list[_Subject] | None]
    attributedTo: NotRequired[_Attribution | None]
    generatedBy: NotRequired[_Generated | None]


_BODY = Codec(_Body)


def _body(fact: Fact) -> JSONObject:
    """What a revision keeps beside its columns, in the wire's names."""
    body: JSONObject = {
        "size": fact.size,
        "trust": fact.trust,
        "updatedAt": fact.updated_at,
        "validFrom": fact.valid_from,
        "validUntil": fact.valid_until,
        "observedAt": fact.observed_at,
        "verifiedBy": fact.verified_by,
        "verifiedAt": fact.verified_at,
        "supersedes": fact.supersedes,
        "review": fact.review,
    }
    if fact.retention is not None:
        retention = fact.retention
        body["retention"] = {
            "keepUntil": retention.keep_until,
            "keepDays": retention.keep_days,
            "legalHold": retention.legal_hold,
        }
    if fact.subjects is not None:
        body["subjects"] = [{"kind": s.kind, "id": s.id} for s in fact.subjects]
    if fact.attributed_to is not None:
        who = fact.attributed_to
        body["attributedTo"] = {"kind": who.kind, "id": who.id, "agentVersion": who.agent_version}
    if fact.generated_by is not None:
        body["generatedBy"] = {
            "runId": fact.generated_by.run_id,
            "toolCallId": fact.generated_by.tool_call_id,
        }
    return body


def _retention(body: _Retention | None) -> Retention | None:
    if body is None:
        return None
    return Retention(body.get("keepUntil"), body.get("keepDays"), body.get("legalHold"))


def _attribution(body: _Attribution | None) -> FactAttribution | None:
    return (
        None
        if body is None
        else FactAttribution(body["kind"], body["id"], body.get("agentVersion"))
    )


def _generated(body: _Generated | None) -> FactGeneratedBy | None:
    return None if body is None else FactGeneratedBy(body["runId"], body.get("toolCallId"))


def _fact(row: sqlite3.Row) -> Fact:
    body = _BODY.load(row["body"])
    if body is None:
        raise ValueError(f"fact revision {row['revision_id']} has no body")
    subjects = body.get("subjects")
    about = None if subjects is None else tuple(FactSubject(s["kind"], s["id"]) for s in subjects)
    return Fact(
        id=row["fact_id"],
        revision_id=None if row["revision_id"] == row["fact_id"] else row["revision_id"],
        version=row["version"],
        type=row["type"],
        scope=load_object(row["scope"]),
        created_at=row["created_at"],
        content=load(row["content"]),
        content_hash=row["content_hash"],
        size=body["size"],
        trust=body["trust"],
        updated_at=body.get("updatedAt"),
        retention=_retention(body.get("retention")),
        subjects=about,
        attributed_to=_attribution(body.get("attributedTo")),
        generated_by=_generated(body.get("generatedBy")),
        valid_from=body.get("validFrom"),
        valid_until=body.get("validUntil"),
        observed_at=body.get("observedAt"),
        verified_by=body.get("verifiedBy"),
        verified_at=body.get("verifiedAt"),
        supersedes=body.get("supersedes"),
        review=body.get("review"),
        expires_at=row["expires_at"],
        invalidated_at=row["invalidated_at"],
        invalidated_by=row["invalidated_by"],
        invalidation_reason=row["invalidation_reason"],
    )


def insert(db: Database, tenant_id: str, fact: Fact) -> None:
    """Keep a revision (the first of a fact, or the next one)."""
    scope = fact.scope
    db.run(
        "INSERT INTO fact_revisions (revision_id, fact_id, version, tenant_id, type, scope, "
        "project_id, participant_id, user_id, conversation_id, content, content_hash, body, "
        "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            fact.revision_id or fact.id,
            fact.id,
            fact.version,
            tenant_id,
            fact.type,
            dump(scope),
            scope.get("projectId"),
            scope.get("participantId"),
            scope.get("userId"),
            scope.get("threadId"),
            dump(fact.content),
            fact.content_hash,
            dump({k: v for k, v in _body(fact).items() if v is not None}),
            fact.created_at,
            fact.expires_at,
        ),
    )


def close(db: Database, fact_id: str, version: int, at: str, by: str, reason: str) -> None:
    """End a fact's revision: it is no longer current."""
    db.run(
        "UPDATE fact_revisions SET invalidated_at = ?, invalidated_by = ?, "
        "invalidation_reason = ? WHERE fact_id = ? AND version = ?",
        (at, by, reason, fact_id, version),
    )


def revisions(db: Database, tenant_id: str, fact_id: str) -> list[Fact]:
    """Every revision of a fact, newest first."""
    rows = db.all(
        f"SELECT {_COLUMNS} FROM fact_revisions WHERE tenant_id = ? AND fact_id = ? "
        "ORDER BY version DESC",
        (tenant_id, fact_id),
    )
    return [_fact(row) for row in rows]


def current(db: Database, tenant_id: str, fact_id: str) -> Fact | None:
    """A fact's current revision (None once deleted or erased)."""
    row = db.one(
        f"SELECT {_COLUMNS} FROM fact_revisions WHERE tenant_id = ? AND fact_id = ? "
        "AND invalidated_at IS NULL",
        (tenant_id, fact_id),
    )
    return None if row is None else _fact(row)


@dataclass(frozen=True)
class FactFilter:
    """What a list of current facts is narrowed to (the scope's JSON is matched above)."""

    type: str | None = None
    project_id: str | None = None
    with_tenant_wide: bool = False
    tenant_wide_only: bool = False


def list_current(
    db: Database,
    tenant_id: str,
    filters: FactFilter,
    *,
    after: int | None,
    limit: int,
    any_revision: bool = False,
) -> list[tuple[int, Fact]]:
    """Up to `limit` current revisions (every revision with `any_revision`), newest first,
    each with its position."""
    where = Where("tenant_id = ?", tenant_id)
    if not any_revision:
        where.add("invalidated_at IS NULL")
    where.equal({"type": filters.type})
    if filters.tenant_wide_only:
        where.add("project_id IS NULL")
    elif filters.project_id is not None:
        clause = (
            "(project_id = ? OR project_id IS NULL)"
            if filters.with_tenant_wide
            else ("project_id = ?")
        )
        where.add(clause, filters.project_id)
    if after is not None:
        where.add("seq < ?", after)
    rows = db.all(
        f"SELECT {_COLUMNS} FROM fact_revisions WHERE {where} ORDER BY seq DESC LIMIT ?",
        [*where.params, limit],
    )
    return [(row["seq"], _fact(row)) for row in rows]


def ids_about(
    db: Database,
    tenant_id: str,
    *,
    participant: str | None = None,
    external: str | None = None,
    conversation: str | None = None,
) -> list[str]:
    """The facts (any revision) about a participant, an external subject or a conversation."""
    clauses: list[str] = []
    params: list[SQLValue] = [tenant_id]
    if participant is not None:
        clauses += ["participant_id = ?", _SUBJECT]
        params += [participant, "participant", participant]
    if external is not None:
        clauses.append(_SUBJECT)
        params += ["external", external]
    if conversation is not None:
        clauses.append("conversation_id = ?")
        params.append(conversation)
    rows = db.all(
        "SELECT DISTINCT fact_id FROM fact_revisions WHERE tenant_id = ? "
        f"AND ({' OR '.join(clauses) or '0'})",
        params,
    )
    return [row["fact_id"] for row in rows]


_SUBJECT = (
    "EXISTS (SELECT 1 FROM json_each(body, '$.subjects') s "
    "WHERE json_extract(s.value, '$.kind') = ? AND json_extract(s.value, '$.id') = ?)"
)


def erase(db: Database, tenant_id: str, fact_ids: Sequence[str]) -> int:
    """Delete every revision of these facts, content and scope alike (an erasure keeps no
    trace of whom they were about); how many facts went."""
    gone = 0
    for chunk in chunks(fact_ids):
        places = marks(chunk)
        db.run(
            f"DELETE FROM fact_revisions WHERE tenant_id = ? AND fact_id IN ({places})",
            [tenant_id, *chunk],
        )
        gone += len(chunk)
    return gone
