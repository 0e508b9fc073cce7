"""Cost and usage from what runs recorded: each agent turn's model calls and tokens, priced
where the provider says what a model costs.

One cost record stands for one turn's model calls (`metrics.calls` says how many); usage
counts each run's start and end and its tokens, by run class, as `GET /v1/usage` groups them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from .errors import ValidationFailed
from .time import parse_time

LLM = "llm.inference"
COST_DIMENSIONS = {
    "agentId": "agent_id", "runId": "run_id", "category": "category",
    "providerId": "provider_id", "day": "day", "month": "month", "tenant": "tenant",
    "conversationId": "conversation_id", "model": "model", "servedModel": "model",
    "projectId": "project_id", "orgId": "org", "rootRunId": "run_id", "flowId": "flow",
}  # fmt: skip
"""`groupBy` of the cost aggregate → the turn's field it groups on."""
USAGE_KEYS = {"project": "projectId", "agent": "agentId", "kind": "kind", "class": "class",
              "state": "state", "day": "day"}  # fmt: skip
"""`groupBy` of usage → the group's wire field."""
MAX_USAGE_DAYS = 92


@dataclass(frozen=True)
class RecordedTurn:
    """What one run recorded that cost and usage read."""

    run_id: str
    tenant_id: str
    project_id: str
    agent_id: str | None
    agent_version: str | None
    conversation_id: str | None
    status: str
    run_class: str
    created_at: str
    ended_at: str | None
    provider_id: str | None = None
    model: str | None = None
    """The model that answered, as the provider named it."""
    asked_model: str | None = None
    """The model the turn asked for: what its price is looked up by."""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: int | None = None

    @property
    def called_a_model(self) -> bool:
        """Whether a model answered it (a turn that failed before, or a flow run, didn't)."""
        return self.calls > 0 and self.provider_id not in (None, "none")


Prices = Mapping[tuple[str, str], tuple[float, float]]
"""(provider, model) → USD per 1k prompt tokens and per 1k completion tokens."""


def cost_of(turn: RecordedTurn, prices: Prices) -> float | None:
    """What a turn's model calls cost, or None when its provider says no price."""
    price = prices.get((turn.provider_id or "", turn.asked_model or turn.model or ""))
    if price is None:
        return None
    return turn.prompt_tokens / 1000 * price[0] + turn.completion_tokens / 1000 * price[1]


@dataclass(frozen=True)
class CostTotals:
    """Model calls, tokens and money over some turns (money: the priced ones)."""

    records: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    priced: int = 0

    def plus(self, turn: RecordedTurn, cost: float | None) -> CostTotals:
        return CostTotals(
            self.records + 1,
            self.calls + turn.calls,
            self.prompt_tokens + turn.prompt_tokens,
            self.completion_tokens + turn.completion_tokens,
            self.cost_usd + (cost or 0.0),
            self.priced + (cost is not None),
        )


@dataclass(frozen=True)
class TokenCount:
    """Prompt and completion tokens."""

    prompt: int
    completion: int


@dataclass(frozen=True)
class RunCost:
    """What an eval run's replays cost: model calls, tokens, and money when priced."""

    model_calls: int
    tokens: TokenCount
    cost_usd: float | None = None


def run_cost(totals: CostTotals) -> RunCost | None:
    """An eval run's cost from its replays' totals; None when no replay called a model."""
    if totals.records == 0:
        return None
    tokens = TokenCount(totals.prompt_tokens, totals.completion_tokens)
    return RunCost(totals.calls, tokens, round(totals.cost_usd, 6) if totals.priced else None)


def total(
    turns: Iterable[RecordedTurn], prices: Prices, start: CostTotals | None = None
) -> CostTotals:
    """The totals of the turns that called a model (added to `start`)."""
    found = start or CostTotals()
    for turn in turns:
        if turn.called_a_model:
            found = found.plus(turn, cost_of(turn, prices))
    return found


def cost_dimensions(group_by: str) -> list[str]:
    """The dimensions a cost `groupBy` names; 400 for an unknown one."""
    keys = [k.strip() for k in group_by.split(",") if k.strip()]
    unknown = [k for k in keys if k not in COST_DIMENSIONS]
    if not keys or unknown:
        raise ValidationFailed("groupBy", f"takes {', '.join(COST_DIMENSIONS)}")
    return keys


def cost_key(turn: RecordedTurn, dimension: str) -> str | None:
    """The value a turn groups under for one cost dimension."""
    when = turn.ended_at or turn.created_at
    values = {
        "agent_id": turn.agent_id, "run_id": turn.run_id, "category": LLM,
        "provider_id": turn.provider_id, "day": when[:10], "month": when[:7],
        "tenant": turn.tenant_id, "conversation_id": turn.conversation_id,
        "model": turn.model, "project_id": turn.project_id, "org": None, "flow": None,
    }  # fmt: skip
    return values[COST_DIMENSIONS[dimension]]


@dataclass
class CostGroup:
    """One aggregate group: its key, and its totals."""

    key: dict[str, str | None]
    totals: CostTotals = field(default_factory=CostTotals)


def aggregate(
    turns: Iterable[RecordedTurn], dimensions: Sequence[str], prices: Prices
) -> tuple[list[CostGroup], CostTotals]:
    """Turns grouped by `dimensions`, the most expensive first (ties by key), and the total."""
    groups: dict[tuple[str | None, ...], CostGroup] = {}
    overall = CostTotals()
    for turn in turns:
        if not turn.called_a_model:
            continue
        cost = cost_of(turn, prices)
        key = tuple(cost_key(turn, d) for d in dimensions)
        group = groups.setdefault(key, CostGroup(dict(zip(dimensions, key, strict=True))))
        group.totals = group.totals.plus(turn, cost)
        overall = overall.plus(turn, cost)
    ordered = sorted(
        groups.values(), key=lambda g: (-g.totals.cost_usd, [v or "" for v in g.key.values()])
    )
    return ordered, overall


@dataclass(frozen=True)
class UsageRecord:
    """One counted event: a run started or ended, or its model calls."""

    project_id: str
    agent_id: str | None
    kind: str
    run_class: str
    state: str | None
    at: str
    quantity: float


def usage_records(turn: RecordedTurn) -> list[UsageRecord]:
    """What a run counts: its start, its end (its duration in ms), its tokens."""
    base = (turn.project_id, turn.agent_id)
    found = [UsageRecord(*base, "run.started", turn.run_class, None, turn.created_at, 1)]
    if turn.ended_at is not None:
        ended_ms = _milliseconds(turn.created_at, turn.ended_at)
        found.append(
            UsageRecord(*base, "run.ended", turn.run_class, turn.status, turn.ended_at, ended_ms)
        )
    if turn.called_a_model:
        tokens = turn.prompt_tokens + turn.completion_tokens
        found.append(
            UsageRecord(*base, LLM, turn.run_class, None, turn.ended_at or turn.created_at, tokens)
        )
    return found


def _milliseconds(start: str, end: str) -> float:
    return max(0.0, (parse_time(end) - parse_time(start)).total_seconds() * 1000)


def usage_keys(group_by: Sequence[str] | None) -> list[str]:
    """The usage dimensions asked for (default project, kind); 400 for an unknown one."""
    keys = list(group_by) if group_by else ["project", "kind"]
    unknown = [k for k in keys if k not in USAGE_KEYS]
    if unknown:
        raise ValidationFailed("groupBy", f"takes {', '.join(USAGE_KEYS)}")
    return keys


def check_window(start: str, end: str) -> None:
    """A usage window ends after it starts, at most 92 days later."""
    span = parse_time(end) - parse_time(start)
    if span.total_seconds() <= 0:
        raise ValidationFailed("to", "is not after from")
    if span.days > MAX_USAGE_DAYS or (span.days == MAX_USAGE_DAYS and span.seconds > 0):
        raise ValidationFailed("to", f"is more than {MAX_USAGE_DAYS} days after from")


@dataclass
class UsageGroup:
    """Records with the same values of the asked dimensions: how many, their sum, when."""

    key: dict[str, str | None]
    count: int
    quantity: float
    first_at: str
    last_at: str


def group_usage(records: Iterable[UsageRecord], keys: Sequence[str]) -> list[UsageGroup]:
    """Records grouped by `keys`, ordered by those values."""
    groups: dict[tuple[str | None, ...], UsageGroup] = {}
    for record in records:
        values = {
            "project": record.project_id, "agent": record.agent_id, "kind": record.kind,
            "class": record.run_class, "state": record.state, "day": record.at[:10],
        }  # fmt: skip
        key = tuple(values[k] for k in keys)
        found = groups.get(key)
        if found is None:
            wire = {USAGE_KEYS[k]: v for k, v in zip(keys, key, strict=True)}
            groups[key] = UsageGroup(wire, 1, record.quantity, record.at, record.at)
        else:
            found.count += 1
            found.quantity += record.quantity
            found.first_at = min(found.first_at, record.at)
            found.last_at = max(found.last_at, record.at)
    return [groups[k] for k in sorted(groups, key=lambda k: [v or "" for v in k])]


def default_window(now: datetime | None = None) -> tuple[datetime, datetime]:
    """The cost aggregate's window when none is given: the last 30 days."""
    end = now or datetime.now(UTC)
    return end - timedelta(days=30), end
