"""`/v1/memory/facts` and `/v1/memory/retrieve`: facts written, read, changed and retrieved."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from ..domain.errors import BadInput
from ..domain.facts import Fact as FactRecord
from ..domain.facts import FactSubject, Retention
from ..domain.paging import Page
from ..services import memory
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .routing import plain
from .wire import WHOLE, JsonAny, JsonObject, OpenJson, OpenObject, WireModel, WirePage, WireTime


class RetentionWire(WireModel):
    """How long a fact is kept."""

    keep_until: WireTime | None = None
    keep_days: Annotated[int, Field(ge=1), WHOLE] | None = None
    legal_hold: bool | None = None

    def record(self) -> Retention:
        return Retention(self.keep_until, self.keep_days, self.legal_hold)


class SubjectWire(WireModel):
    """Whom a fact is about."""

    kind: str = Field(min_length=1)
    id: str = Field(min_length=1)


class AttributionWire(WireModel):
    """Who asserted a fact."""

    kind: str
    id: str
    agent_version: str | None = None


class GeneratedByWire(WireModel):
    """The run step that wrote a fact."""

    run_id: str
    tool_call_id: str | None = None


class FactAnswer(WireModel):
    """A fact's revision as the 0.1.10 client reads it."""

    id: str
    revision_id: str | None = None
    type: str
    scope: OpenObject
    version: int
    created_at: str
    updated_at: str | None = None
    content: OpenJson = None
    content_hash: str | None = None
    size: int | None = None
    retention: RetentionWire | None = None
    supersedes: str | None = None
    trust: str | None = None
    verified_by: str | None = None
    verified_at: str | None = None
    attributed_to: AttributionWire | None = None
    generated_by: GeneratedByWire | None = None
    subjects: list[SubjectWire] | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    observed_at: str | None = None
    invalidated_at: str | None = None
    invalidated_by: str | None = None
    invalidation_reason: str | None = None
    review: str | None = None
    expires_at: str | None = None


class FactPage(WirePage[FactAnswer]):
    """A page of facts."""


class FactRevisions(WireModel):
    """Every revision of a fact, newest first."""

    data: list[FactAnswer]


class WriteFactBody(WireModel):
    """`memory.writeFact`."""

    type: str = Field(min_length=1)
    scope: JsonObject
    content: JsonAny
    retention: RetentionWire | None = None
    content_hash: str | None = None
    subjects: list[SubjectWire] | None = Field(default=None, max_length=20)
    valid_from: WireTime | None = None
    valid_until: WireTime | None = None
    observed_at: WireTime | None = None

    def draft(self) -> memory.FactDraft:
        return memory.FactDraft(
            content=self.content,
            type=self.type,
            scope=self.scope,
            retention=None if self.retention is None else self.retention.record(),
            subjects=_subjects(self.subjects),
            valid_from=self.valid_from,
            valid_until=self.valid_until,
            observed_at=self.observed_at,
        )


def _subjects(given: list[SubjectWire] | None) -> tuple[FactSubject, ...] | None:
    return None if given is None else tuple(FactSubject(s.kind, s.id) for s in given)


class SupersedeFactBody(WireModel):
    """`memory.supersedeFact`: the next content, and what else changes."""

    content: JsonAny
    expect_version: Annotated[int, Field(ge=1), WHOLE] | None = None
    retention: RetentionWire | None = None
    subjects: list[SubjectWire] | None = Field(default=None, max_length=20)
    valid_from: WireTime | None = None
    valid_until: WireTime | None = None
    observed_at: WireTime | None = None


class VerifyFactBody(WireModel):
    """`memory.verifyFact`."""

    expect_version: Annotated[int, Field(ge=1), WHOLE] | None = None


class FactListQuery(WireModel):
    """Filters of `memory.listFacts`."""

    limit: int | None = None
    cursor: str | None = None
    type: str | None = None
    scope: str | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = None
    inherit: bool = True
    as_of: WireTime | None = None


class GetFactQuery(WireModel):
    """`memory.getFact`: one revision by number or by time."""

    version: int | None = Field(default=None, ge=1)
    as_of: WireTime | None = None


class DeleteFactQuery(WireModel):
    """`memory.deleteFact`."""

    expect_version: Annotated[int, Field(ge=1), WHOLE] | None = None


class RetrieveBody(WireModel):
    """`memory.retrieve`: an intent."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [
        {"properties": {"mode": {"enum": ["list", "semantic"]}}},
        {"required": ["query"], "properties": {"query": {"type": "string", "minLength": 1}}},
    ]})  # fmt: skip

    mode: Literal["list", "keyword", "semantic", "both"]
    query: str | None = None
    type: str | None = Field(default=None, min_length=1)
    scope: JsonObject | None = None
    limit: Annotated[int, Field(ge=1), WHOLE] | None = None
    embedding_model: str | None = None


class Hit(WireModel):
    """One retrieved fact and its score (absent for `list`)."""

    fact: FactAnswer
    score: float | None = None


class RetrieveResult(WireModel):
    """What a retrieval found, best first."""

    results: list[Hit]


def write(call: Call[WriteFactBody, NoQuery]) -> FactRecord:
    return memory.write(call.ctx, call.body.draft())


async def list_facts(call: Call[NoBody, FactListQuery]) -> Page[FactRecord]:
    q = call.query
    partial = None
    if q.scope is not None:
        try:
            partial = json.loads(q.scope)
        except ValueError:
            partial = None
        if not isinstance(partial, dict):
            raise BadInput("scope: must be a JSON object (a partial fact scope).", field="scope")
    query = memory.FactQuery(q.type, partial, q.scope_kind, q.scope_id, q.inherit, q.as_of)
    return memory.list_page(call.ctx, query, limit=q.limit, cursor=q.cursor)


async def get(call: Call[NoBody, GetFactQuery]) -> FactRecord:
    q = call.query
    return memory.get(call.ctx, call.path["factId"], version=q.version, as_of=q.as_of)


def delete(call: Call[NoBody, DeleteFactQuery]) -> FactRecord:
    return memory.delete(call.ctx, call.path["factId"], call.query.expect_version)


async def revisions(call: Call[NoBody, NoQuery]) -> dict[str, object]:
    return {"data": plain(memory.revisions(call.ctx, call.path["factId"]))}


def supersede(call: Call[SupersedeFactBody, NoQuery]) -> FactRecord:
    body = call.body
    draft = memory.FactDraft(
        content=body.content,
        retention=None if body.retention is None else body.retention.record(),
        subjects=_subjects(body.subjects),
        valid_from=body.valid_from,
        valid_until=body.valid_until,
        observed_at=body.observed_at,
    )
    return memory.supersede(call.ctx, call.path["factId"], draft, body.expect_version)


def verify(call: Call[VerifyFactBody, NoQuery]) -> FactRecord:
    return memory.verify(call.ctx, call.path["factId"], call.body.expect_version)


async def retrieve(call: Call[RetrieveBody, NoQuery]) -> dict[str, object]:
    b = call.body
    hits = memory.retrieve(
        call.ctx, mode=b.mode, query=b.query, type=b.type, scope=b.scope, limit=b.limit
    )
    results = [
        {"fact": plain(fact), **({} if score is None else {"score": score})} for fact, score in hits
    ]
    return {"results": results}


FACT_ERRORS = (400, 401, 404, 409)
ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/memory/facts",
        "memory.listFacts",
        list_facts,
        "List the facts the caller sees, newest first.",
        query=FactListQuery,
        response=FactPage,
        errors=(400, 401),
    ),
    Endpoint(
        "POST",
        "/v1/memory/facts",
        "memory.writeFact",
        write,
        "Write a fact.",
        body=WriteFactBody,
        response=FactAnswer,
        status=201,
        errors=(400, 401, 409, 413),
    ),
    Endpoint(
        "GET",
        "/v1/memory/facts/{factId}",
        "memory.getFact",
        get,
        "A fact: its current revision, one by version, or the one current at a time.",
        query=GetFactQuery,
        response=FactAnswer,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "DELETE",
        "/v1/memory/facts/{factId}",
        "memory.deleteFact",
        delete,
        "Delete a fact: its current revision is closed.",
        query=DeleteFactQuery,
        response=FactAnswer,
        errors=FACT_ERRORS,
    ),
    Endpoint(
        "GET",
        "/v1/memory/facts/{factId}/revisions",
        "memory.listFactRevisions",
        revisions,
        "Every revision of a fact, newest first.",
        response=FactRevisions,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/memory/facts/{factId}/supersede",
        "memory.supersedeFact",
        supersede,
        "Change a fact's content: its next revision.",
        body=SupersedeFactBody,
        response=FactAnswer,
        errors=(*FACT_ERRORS, 413),
    ),
    Endpoint(
        "POST",
        "/v1/memory/facts/{factId}/verify",
        "memory.verifyFact",
        verify,
        "Mark a fact verified: its next revision.",
        body=VerifyFactBody,
        body_optional=True,
        response=FactAnswer,
        errors=(*FACT_ERRORS, 413),
    ),
    Endpoint(
        "POST",
        "/v1/memory/retrieve",
        "memory.retrieve",
        retrieve,
        "Retrieve facts by intent (list or keyword).",
        body=RetrieveBody,
        response=RetrieveResult,
        errors=(400, 401, 413, 422),
    ),
]
