"""`/v1/memory/erasures`: erase a person's words as the 0.1.10 client and CLI ask, and the
ledger of erasures. The 0.4 `/v1/erasures` (in `corrections`) erases the same."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from ..domain.json import JSON, JSONObject
from ..domain.paging import Page
from ..services import erasures
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import PageQuery, WireModel, WirePage, exactly_one


class SubjectSelector(WireModel):
    """A person: an app's end user, or an external subject facts name."""

    kind: Literal["participant", "external"]
    id: str = Field(min_length=1, max_length=256)


class CreateErasureBody(WireModel):
    """Exactly one of `factId`, `subject` or `conversationId`."""

    model_config = ConfigDict(json_schema_extra=exactly_one("factId", "subject", "conversationId"))

    fact_id: str | None = Field(default=None, min_length=1, max_length=256)
    subject: SubjectSelector | None = None
    conversation_id: str | None = Field(default=None, min_length=1, max_length=256)

    @model_validator(mode="after")
    def _one(self) -> CreateErasureBody:
        given = [n for n in ("fact_id", "subject", "conversation_id") if getattr(self, n)]
        if len(given) != 1:
            raise ValueError("name exactly one of factId, subject or conversationId")
        return self

    def selector(self) -> erasures.Selector:
        if self.subject is not None:
            return erasures.Selector(self.subject.kind, self.subject.id)
        if self.fact_id is not None:
            return erasures.Selector("fact", self.fact_id)
        return erasures.Selector("conversation", str(self.conversation_id))


class MemoryErasureAnswer(WireModel):
    """An erasure as the ledger shows it: no selector once it completed."""

    id: str
    selector_kind: str
    status: str
    phase: str
    requested_by: str
    matchable: bool
    counts: dict[str, int]
    attempts: int
    created_at: str
    started_at: str | None = None
    completed_at: str | None = None


class ErasureWarning(WireModel):
    """Something the caller should know about an erasure."""

    code: str
    message: str


class MemoryErasureCreated(MemoryErasureAnswer):
    """A new erasure, with why it can't be replayed after a restore."""

    warnings: list[ErasureWarning] | None = None


class ErasurePage(WirePage[MemoryErasureAnswer]):
    """A page of the ledger, newest first."""


class LedgerEntry(WireModel):
    """One erasure as the export holds it: no content, no identifier."""

    id: str
    selector_kind: str
    selector_hmac: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    key_id: str | None = None
    requested_by: str
    status: str
    created_at: str
    completed_at: str | None = None


class Ledger(WireModel):
    """The whole ledger, oldest first."""

    data: list[LedgerEntry]


class ErasureReplayBody(WireModel):
    """`memory.replayErasures`: the ledger an export gave."""

    erasures: list[LedgerEntry] = Field(max_length=10_000)


class Unmatched(WireModel):
    """An erasure a replay couldn't find its person for, and why."""

    id: str
    reason: str


class ReplayResult(WireModel):
    """What a replay did with each erasure."""

    replayed: list[str]
    restored: list[str]
    unmatched: list[Unmatched]


class ErasureResumeBody(WireModel):
    """`memory.resumeErasure`."""

    force: bool | None = None


UNMATCHABLE = (
    "kindgi dev keeps no erasure ledger key, so a replay after a backup restore can't find "
    "this person again."
)


def create(call: Call[CreateErasureBody, NoQuery]) -> JSONObject:
    done = erasures.erase(call.ctx, call.body.selector())
    return {**vars(done), "warnings": [{"code": "erasure-unmatchable", "message": UNMATCHABLE}]}


async def list_erasures(call: Call[NoBody, PageQuery]) -> Page[erasures.MemoryErasure]:
    return erasures.list_page(call.ctx, limit=call.query.limit, cursor=call.query.cursor)


async def get(call: Call[NoBody, NoQuery]) -> erasures.MemoryErasure:
    return erasures.get(call.ctx, call.path["erasureId"])


async def export(call: Call[NoBody, NoQuery]) -> JSONObject:
    return {"data": [_entry(e) for e in erasures.ledger(call.ctx)]}


def _entry(erasure: erasures.MemoryErasure) -> JSONObject:
    fields = ("id", "selector_kind", "requested_by", "status", "created_at", "completed_at")
    return {name: getattr(erasure, name) for name in fields}


async def replay(call: Call[ErasureReplayBody, NoQuery]) -> JSONObject:
    unmatched: list[JSON] = [
        {"id": e.id, "reason": "no-keyed-hash" if e.selector_hmac is None else "unknown-key"}
        for e in call.body.erasures
    ]
    return {"replayed": [], "restored": [], "unmatched": unmatched}


async def resume(call: Call[ErasureResumeBody, NoQuery]) -> erasures.MemoryErasure:
    return erasures.get(call.ctx, call.path["erasureId"])


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/memory/erasures",
        "memory.createErasure",
        create,
        "Erase a person's words (a fact, an end user, an external subject or a conversation).",
        body=CreateErasureBody,
        response=MemoryErasureCreated,
        status=202,
        errors=(400, 401, 404, 409, 413),
    ),
    Endpoint(
        "GET",
        "/v1/memory/erasures",
        "memory.listErasures",
        list_erasures,
        "The erasures, newest first.",
        query=PageQuery,
        response=ErasurePage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/memory/erasures/export",
        "memory.exportErasures",
        export,
        "The whole erasure ledger, oldest first.",
        response=Ledger,
        errors=(401,),
    ),
    Endpoint(
        "POST",
        "/v1/memory/erasures/replay",
        "memory.replayErasures",
        replay,
        "Replay erasures after a restore (none can be found again here: no ledger key).",
        body=ErasureReplayBody,
        response=ReplayResult,
        errors=(400, 401, 413),
    ),
    Endpoint(
        "POST",
        "/v1/memory/erasures/{erasureId}/resume",
        "memory.resumeErasure",
        resume,
        "Resume an erasure (kindgi dev's are done at once: it comes back as it is).",
        body=ErasureResumeBody,
        body_optional=True,
        response=MemoryErasureAnswer,
        errors=(400, 401, 404, 413),
    ),
    Endpoint(
        "GET",
        "/v1/memory/erasures/{erasureId}",
        "memory.getErasure",
        get,
        "One erasure.",
        response=MemoryErasureAnswer,
        errors=(401, 404),
    ),
]
