"""`/v1/cost` and `/v1/usage`: what runs' model calls cost, and what the workspace used,
read from the runs kindgi dev recorded."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..domain.cost import COST_DIMENSIONS, LLM, CostGroup, CostTotals
from ..domain.json import JSONObject
from ..domain.paging import clamp_limit, encode_cursor, whole_after
from ..services import cost
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WholeNumber, WireModel, WirePage, WireTime


def _listed(value: object) -> list[str]:
    """A comma-separated query value, or a repeated one, as a list."""
    values = value if isinstance(value, list) else [value]
    return [part.strip() for v in values for part in str(v).split(",") if part.strip()]


class CostQuery(WireModel):
    """The filters `cost.records.list` and `cost.aggregate` share."""

    limit: int | None = None
    cursor: str | None = None
    run_id: str | None = None
    root_run_id: str | None = None
    agent_id: str | None = None
    conversation_id: str | None = None
    category: str | None = None
    provider_id: str | None = None
    model: str | None = None
    served_model: str | None = None
    flow_id: str | None = None
    include_descendants: bool | None = None
    from_: WireTime | None = Field(default=None, alias="from")
    to: WireTime | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = None
    inherit: bool | None = None
    include: Literal["rawUsage"] | None = None

    def filters(self) -> dict[str, str | None]:
        """The run filters the store applies."""
        return {
            "run_id": self.run_id or self.root_run_id,
            "agent_id": self.agent_id,
            "conversation_id": self.conversation_id,
            "provider_id": self.provider_id,
            "model": self.model or self.served_model,
            "project_id": self.scope_id if self.scope_kind == "project" else None,
        }

    def matches_nothing(self) -> bool:
        """Filters no kindgi dev record has: another category, a flow, an org."""
        return (
            (self.category not in (None, LLM))
            or self.flow_id is not None
            or (self.scope_kind == "org")
        )


DIMENSION = "|".join(COST_DIMENSIONS)
GROUP_BY = f"^({DIMENSION})(,({DIMENSION}))*$"
"""`groupBy` of the aggregate: the client's dimensions, comma-separated."""


class AggregateQuery(CostQuery):
    """`groupBy` (required) and the filters."""

    group_by: str = Field(pattern=GROUP_BY)


class UsageQuery(WireModel):
    """The window, the dimensions to group by, and the kinds, classes, states to keep."""

    from_: WireTime = Field(alias="from")
    to: WireTime
    group_by: list[Literal["project", "agent", "kind", "class", "state", "day"]] | None = None
    kind: list[str] = Field(default_factory=list)
    class_: list[str] = Field(default_factory=list, alias="class")
    state: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1, le=10_000)
    cursor: str | None = None
    project_id: str | None = None

    @field_validator("group_by", "kind", "class_", "state", mode="before")
    @classmethod
    def _split(cls, value: object) -> list[str] | None:
        return None if value is None else _listed(value)


class ModelCallTokens(WireModel):
    """A record's tokens."""

    prompt_tokens: int
    completion_tokens: int


class CostRecordAnswer(WireModel):
    """One agent turn's model calls (`metrics.calls` of them)."""

    id: str
    tenant_id: str
    category: str
    provider_id: str | None = None
    run_id: str
    root_run_id: str
    agent_id: str | None = None
    agent_version: str | None = None
    conversation_id: str | None = None
    project_id: str
    quantity: int
    unit: Literal["tokens"]
    cost_usd: WholeNumber | None = None
    occurred_at: str
    metrics: dict[str, int]
    model: str | None = None
    served_model: str | None = None
    status: Literal["ok", "failed"]
    usage: ModelCallTokens
    duration_ms: int | None = None


class CostRecordPage(WirePage[CostRecordAnswer]):
    """A page of cost records, newest first."""


class TokenTotals(WireModel):
    """Token sums of a group or of every record."""

    prompt: int
    completion: int
    cache_read: int
    cache_write: int
    reasoning: int


class CostGroupAnswer(WireModel):
    """One group of the aggregate."""

    key: dict[str, str | None]
    count: int
    total_usd: WholeNumber
    tokens: TokenTotals


class TimeRange(WireModel):
    """The window the aggregate covers."""

    from_: str = Field(alias="from")
    to: str


class CostAggregate(WireModel):
    """Cost grouped, the most expensive first, with totals over every record."""

    groups: list[CostGroupAnswer]
    total_groups: int
    truncated: bool
    total_usd: WholeNumber
    total_records: int
    tokens: TokenTotals
    time_range: TimeRange
    group_by: list[str]


class UsageGroupAnswer(WireModel):
    """One usage group: its dimensions, count, quantity and first and last times."""

    project_id: str | None = None
    agent_id: str | None = None
    kind: str | None = None
    class_: str | None = Field(default=None, alias="class")
    state: str | None = None
    day: str | None = None
    count: int
    quantity: WholeNumber
    first_at: str
    last_at: str


# Not a WirePage: the contract's usage page has no `hasMore` (its last page has no cursor).
class UsagePage(WireModel):
    """A page of usage groups and the watermark every record up to is counted by."""

    data: list[UsageGroupAnswer]
    watermark: str
    next_cursor: str | None = None


def _record(found: cost.CostRecord) -> JSONObject:
    turn = found.turn
    answer: JSONObject = {
        "id": cost.RECORD_PREFIX + turn.run_id, "tenant_id": turn.tenant_id, "category": LLM,
        "provider_id": turn.provider_id, "run_id": turn.run_id, "root_run_id": turn.run_id,
        "agent_id": turn.agent_id, "agent_version": turn.agent_version,
        "conversation_id": turn.conversation_id, "project_id": turn.project_id,
        "quantity": turn.prompt_tokens + turn.completion_tokens, "unit": "tokens",
        "occurred_at": turn.ended_at or turn.created_at, "metrics": {"calls": turn.calls},
        "model": turn.asked_model or turn.model, "served_model": turn.model,
        "status": "failed" if turn.status == "failed" else "ok",
        "usage": {"prompt_tokens": turn.prompt_tokens,
                  "completion_tokens": turn.completion_tokens},
        "duration_ms": turn.duration_ms,
    }  # fmt: skip
    if found.cost_usd is not None:
        answer["cost_usd"] = round(found.cost_usd, 6)
    return {k: v for k, v in answer.items() if v is not None}


def _tokens(totals: CostTotals) -> JSONObject:
    return {"prompt": totals.prompt_tokens, "completion": totals.completion_tokens,
            "cache_read": 0, "cache_write": 0, "reasoning": 0}  # fmt: skip


def _group(group: CostGroup) -> JSONObject:
    totals = group.totals
    key: JSONObject = {name: value for name, value in group.key.items()}
    return {"key": key, "count": totals.records, "total_usd": round(totals.cost_usd, 6),
            "tokens": _tokens(totals)}  # fmt: skip


def _offset(cursor: str | None) -> int:
    return whole_after(cursor) or 0


async def list_records(call: Call[NoBody, CostQuery]) -> JSONObject:
    q = call.query
    found = [] if q.matches_nothing() else cost.records(
        call.ctx, start=q.from_, end=q.to, filters=q.filters()
    )  # fmt: skip
    start, size = _offset(q.cursor), clamp_limit(q.limit)
    page: JSONObject = {"data": [_record(r) for r in found[start : start + size]]}
    page["has_more"] = start + size < len(found)
    if page["has_more"]:
        page["next_cursor"] = encode_cursor([start + size])
    return page


async def get_record(call: Call[NoBody, NoQuery]) -> JSONObject:
    return _record(cost.record(call.ctx, call.path["recordId"]))


async def aggregate(call: Call[NoBody, AggregateQuery]) -> JSONObject:
    q = call.query
    limit = q.limit if q.limit is not None and q.limit > 0 else 1000
    found = cost.aggregated(
        call.ctx, q.group_by, start=q.from_, end=q.to, filters=q.filters(), limit=limit
    )
    groups = [] if q.matches_nothing() else found.groups
    totals = CostTotals() if q.matches_nothing() else found.totals
    return {
        "groups": [_group(g) for g in groups],
        "total_groups": len(groups) if q.matches_nothing() else found.total_groups,
        "truncated": found.total_groups > len(groups) and not q.matches_nothing(),
        "total_usd": round(totals.cost_usd, 6),
        "total_records": totals.records,
        "tokens": _tokens(totals),
        "time_range": {"from_": found.start, "to": found.end},
        "group_by": [name for name in found.dimensions],
    }


async def read_usage(call: Call[NoBody, UsageQuery]) -> JSONObject:
    q = call.query
    found = cost.usage(
        call.ctx, q.from_, q.to, group_by=None if q.group_by is None else list(q.group_by),
        project_id=q.project_id,
        kinds=q.kind, classes=q.class_, states=q.state,
    )  # fmt: skip
    start, size = _offset(q.cursor), q.limit or 1000
    groups = found.groups[start : start + size]
    page: JSONObject = {
        "data": [
            {**{_snake(k): v for k, v in g.key.items() if v is not None}, "count": g.count,
             "quantity": g.quantity, "first_at": g.first_at, "last_at": g.last_at}
            for g in groups
        ],
        "watermark": found.watermark,
    }  # fmt: skip
    if start + size < len(found.groups):
        page["next_cursor"] = encode_cursor([start + size])
    return page


def _snake(name: str) -> str:
    return {"projectId": "project_id", "agentId": "agent_id", "class": "class_"}.get(name, name)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/usage",
        "usage.read",
        read_usage,
        "The workspace's usage in a window, grouped: runs started and ended, model tokens.",
        query=UsageQuery,
        response=UsagePage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/cost/records",
        "cost.records.list",
        list_records,
        "Cost records, newest first: each agent turn's model calls, tokens and cost.",
        query=CostQuery,
        response=CostRecordPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/cost/records/{recordId}",
        "cost.records.get",
        get_record,
        "One cost record.",
        response=CostRecordAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/cost/aggregate",
        "cost.aggregate",
        aggregate,
        "Cost grouped by dimensions over a window, the most expensive first.",
        query=AggregateQuery,
        response=CostAggregate,
        errors=(400, 401),
    ),
]
