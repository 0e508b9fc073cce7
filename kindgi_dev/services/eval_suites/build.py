"""Building a `judged` eval suite version from an agent's corrected runs, as frozen cases."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ...domain import judged_suites as suites
from ...domain.errors import ValidationFailed
from ...domain.json import JSONObject
from ...domain.time import format_time, now_iso, parse_given_time
from ...store import eval_suites as store
from ...store import tool_calls as tool_call_store
from .. import projects
from ..context import Context
from .publish import check_version, claim, taken


@dataclass(frozen=True)
class Built:
    """What building a `judged` version from judgments answers."""

    suite_id: str
    version: str
    kind: str
    case_count: int
    truncated: bool


@dataclass(frozen=True)
class JudgedSelection:
    """Which judged runs of one agent (or flow) in a project become a version's cases.

    `given_filters` are the filters as the request named them, kept in the version's spec.
    """

    version: str
    project_id: str
    agent_id: str | None = None
    agent_version: str | None = None
    flow_id: str | None = None
    since: str | None = None
    until: str | None = None
    judge_class_ids: list[str] = field(default_factory=list)
    min_judgments: int | None = None
    segments: list[dict[str, str]] = field(default_factory=list)
    description: str | None = None
    given_filters: dict[str, Any] = field(default_factory=dict)


def build_from_judgments(ctx: Context, suite_id: str, selection: JudgedSelection) -> Built:
    """Publish a `judged` version: one frozen case per corrected run, newest first, ≤ 1000."""
    check_version(selection.version)
    subject = _subject(selection)
    project_id = projects.get(ctx, selection.project_id).id
    filters = suites.BuildFilters(
        agent_version=selection.agent_version,
        since=_stored_time(selection.since, "since"),
        until=_stored_time(selection.until, "until"),
        min_judgments=selection.min_judgments or 1,
        segments=selection.segments,
    )
    class_ids = selection.judge_class_ids
    with ctx.db.transaction():
        claim(ctx, suite_id, selection.version, project_id)
        judged = store.judged_runs(ctx.db, ctx.tenant_id, project_id, subject, class_ids)
        chosen, truncated = suites.select_runs(judged, filters)
        cases = _cases(ctx, [run.run_id for run in chosen], class_ids)
        spec: JSONObject = {
            "source": "judgments",
            "subject": {"kind": subject[0], "id": subject[1]},
            "filters": selection.given_filters,
            "truncated": truncated,
        }
        stored = store.insert_version(
            ctx.db,
            store.SuiteVersionRow(
                id=suite_id,
                version=selection.version,
                tenant_id=ctx.tenant_id,
                project_id=project_id,
                kind="judged",
                description=selection.description,
                spec=spec,
                case_count=len(cases),
                created_at=now_iso(),
            ),
        )
        if not stored:
            raise taken(suite_id, selection.version)
        store.insert_cases(ctx.db, suite_id, selection.version, cases)
    return Built(suite_id, selection.version, "judged", len(cases), truncated)


def _subject(selection: JudgedSelection) -> tuple[str, str]:
    """("agent", id) or ("flow", id): exactly one; `agentVersion` needs `agentId`."""
    agent, flow = selection.agent_id, selection.flow_id
    if (agent is None) == (flow is None):
        raise ValidationFailed("agentId", "give exactly one of agentId or flowId")
    if selection.agent_version and agent is None:
        raise ValidationFailed("agentVersion", "needs agentId")
    if agent is not None:
        return ("agent", agent)
    assert flow is not None  # exactly one of the two is given (checked above)
    return ("flow", flow)


def _stored_time(text: str | None, name: str) -> str | None:
    """A time filter as times are stored, so it compares with them as text."""
    if text is None:
        return None
    try:
        return format_time(parse_given_time(text))
    except ValueError as error:
        raise ValidationFailed(name, f"must be an ISO-8601 time with a zone: {error}") from None


def _cases(ctx: Context, run_ids: list[str], class_ids: list[str]) -> list[suites.JudgedCase]:
    """The frozen `JudgedEvalCase` of each chosen run, in the order chosen."""
    verdicts: dict[str, list[suites.CountedVerdict]] = defaultdict(list)
    for run_id, judgment in store.counted_verdicts(ctx.db, run_ids, class_ids):
        verdicts[run_id].append(judgment)
    decided: dict[str, list[suites.DecidedCorrection]] = {}
    for run_id, correction in store.decision_corrections(ctx.db, run_ids):
        found = decided.setdefault(run_id, [])
        if correction is not None:
            found.append(correction)
    weights = store.class_weights(ctx.db, ctx.tenant_id)
    copies = store.run_copies(ctx.db, run_ids)
    return [
        _case(ctx, copies[run_id], verdicts[run_id], decided.get(run_id), weights)
        for run_id in run_ids
    ]


def _case(
    ctx: Context,
    run: store.JudgedContent,
    judgments: list[suites.CountedVerdict],
    corrections: list[suites.DecidedCorrection] | None,
    weights: dict[str, float],
) -> suites.JudgedCase:
    """A chosen run's case: from the copy taken at its first judgment when there is one."""
    subject = (
        run.copy_subject
        if isinstance(run.copy_subject, dict) and run.copy_subject
        else {
            "kind": "agent" if run.agent_id else "flow",
            "id": run.agent_id or run.flow_id,
            "version": run.agent_version or run.flow_version,
        }
    )
    if run.content_erased_at:
        return suites.JudgedCase(run.id, subject, erased=True)
    copied = run.copied
    should_have_done = None
    if corrections is not None:
        called = [str(call["toolId"]) for call in tool_call_store.tool_calls(ctx.db, run.id)]
        should_have_done = tuple(suites.decision_corrections(corrections, called))
    return suites.JudgedCase(
        case_id=run.id,
        subject=subject,
        input=suites.case_input(run.copy_input if copied else run.input),
        context=suites.case_context(run.copy_context if copied else run.context, run.tool_env),
        output=run.copy_output if copied else run.output,
        items=tuple(suites.summarize_items(judgments, weights)),
        corrections=should_have_done,
    )
