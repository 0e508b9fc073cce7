"""Test cases: the project's test sets, Build test cases from corrections, and each set's page.

A built set (a `judged` suite) shows its versions and cases; an agent's own test set shows
its active and retired cases, hand cases, Add a case and Retire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.responses import Response

from ..api.eval_suite_bodies import BuildJudgedSuiteBody
from ..api.eval_suites import selection_of
from ..api.test_sets import AddCaseBody, RetireCaseBody, add_hand_case
from ..domain.catalog import Kind
from ..domain.errors import KindgiError, ValidationFailed
from ..domain.json import JSONObject
from ..domain.narrow import object_of
from ..domain.paging import Page
from ..services import catalog, eval_suites, projects, test_set_pulls, test_sets
from . import charts, forms, set_views, words
from .runs import agent_ids, questions_of, to_pick
from .web import Visit, redirect

T = TypeVar("T")

CASES_PAGE = 50


def _flow_ids(visit: Visit) -> list[str]:
    found = catalog.list_page(
        visit.ctx, "flow", limit=100, cursor=None, name=None, include_retired=False
    )
    return [flow["id"] for flow in found.items]


async def index(visit: Visit, errors: dict[str, str] | None = None, status: int = 200) -> Response:
    """`/console/test-cases`: agents' test sets, sets built before, and the Build form."""
    values = dict(visit.form or {})
    return visit.render(
        "test_cases.html",
        status,
        agent_sets=set_views.agent_rows(visit.ctx, agent_ids(visit)),
        suites=set_views.built_rows(visit.ctx),
        pulled=set_views.pulled_rows(visit.ctx),
        agents=agent_ids(visit),
        flows=_flow_ids(visit),
        values=values,
        errors=errors or {},
    )


async def build(visit: Visit) -> Response:
    """`POST /console/test-cases`: build a version of test cases from corrected runs."""
    kind, _, subject_id = visit.field("subject").partition(":")
    suite_id, judgments = visit.field("id"), visit.field("min-judgments")
    try:
        if not suite_id:
            raise ValidationFailed("id", "is required: the test cases' id")
        body = forms.present(
            version=visit.field("version"),
            projectId=projects.get_default(visit.ctx).id,
            agentId=subject_id if kind == "agent" else None,
            flowId=subject_id if kind == "flow" else None,
            agentVersion=visit.field("agent-version") or None,
            minJudgments=forms.number_text(judgments) if judgments else None,
        )
        given = forms.body_of(BuildJudgedSuiteBody, body)
        selection = selection_of(given)
        forms.written(
            visit.ctx, lambda: eval_suites.build_from_judgments(visit.ctx, suite_id, selection)
        )
    except KindgiError as error:
        field = str(error.details.get("field") or "form")
        field = "subject" if field in ("agentId", "flowId") else field
        return await index(visit, {field: error.message}, error.status)
    return redirect(f"/console/test-cases/suites/{suite_id}?version={given.version}")


def runs_on(visit: Visit, suite_id: str) -> dict[str, object]:
    """The runs on a set's test cases, newest first, each named whole (`eval_runs`), and
    each metric drawn across them (`charts`)."""
    records = set_views.runs_on(visit.ctx, suite_id)
    rows = [set_views.run_row(record) for record in records]
    return {"eval_runs": rows, "charts": charts.charts(records)}


def versions_of(visit: Visit, kind: Kind, ident: str) -> list[str]:
    """An agent's, a tool's or a flow's versions, oldest first."""
    found = catalog.list_versions(
        visit.ctx, kind, ident, limit=100, cursor=None, include_tombstoned=False
    )
    return [entry["version"] for entry in found.items]


def agent_versions(visit: Visit, agent_id: str) -> list[str]:
    """An agent's versions, oldest first."""
    return versions_of(visit, "agent", agent_id)


def flow_parts(flow: dict[str, Any], kind: str) -> list[str]:
    """The tools (or agents) a flow's steps run: its nodes of that kind and its pins."""
    named = [node.get("ref") for node in flow.get("nodes") or [] if node.get("kind") == kind]
    pinned = list(((flow.get("pins") or {}).get(f"{kind}s") or {}).keys())
    return sorted({str(a).partition("@")[0] for a in [*named, *pinned] if a})


@dataclass(frozen=True)
class TryForm:
    """What the Try a version form offers: the subject's versions and, for a flow, a version
    picker per tool and agent its steps run (`--with`)."""

    kind: str
    id: str
    versions: list[str]
    tools: dict[str, list[str]]
    agents: dict[str, list[str]]


def try_form(visit: Visit, subject: Mapping[str, object]) -> TryForm:
    """What the Try a version form offers for a set's subject (an agent, or a flow)."""
    ident = str(subject.get("id"))
    if subject.get("kind") == "flow":
        flow = catalog.get_flow(visit.ctx, ident)
        tools = {tool: versions_of(visit, "tool", tool) for tool in flow_parts(flow, "tool")}
        agents = {agent: agent_versions(visit, agent) for agent in flow_parts(flow, "agent")}
        return TryForm("flow", ident, versions_of(visit, "flow", ident), tools, agents)
    return TryForm("agent", ident, agent_versions(visit, ident), {}, {})


async def suite(visit: Visit, errors: dict[str, str] | None = None, status: int = 200) -> Response:
    """`/console/test-cases/suites/{id}`: versions, one version's cases, Try, and the runs."""
    suite_id = visit.request.path_params["suiteId"]
    if test_set_pulls.versions(visit.ctx, suite_id):
        return await pulled_set(visit, errors, status)
    versions = eval_suites.versions(visit.ctx, suite_id)
    chosen = visit.request.query_params.get("version") or versions[-1].version
    current = next((v for v in versions if v.version == chosen), versions[-1])
    cases = eval_suites.list_cases(
        visit.ctx,
        suite_id,
        current.version,
        limit=CASES_PAGE,
        cursor=visit.cursor(f"suite {suite_id} {current.version}"),
    )
    subject = current.spec.get("subject") or {}
    return visit.render(
        "suite.html",
        status,
        suite_id=suite_id,
        versions=versions,
        current=current,
        cases=cases,
        titles=[words.case_title(c.get("input"), i) for i, c in enumerate(cases.items)],
        subject=subject,
        version_rows=set_views.version_rows(
            visit.ctx, suite_id, [(v.version, None) for v in versions]
        ),
        form=try_form(visit, subject),
        **runs_on(visit, suite_id),
        errors=errors or {},
    )


async def pulled_set(visit: Visit, errors: dict[str, str] | None, status: int) -> Response:
    """A pulled or imported set's page: where it came from, its versions, one version's
    cases, Try (on its latest version, as the API tries it) and the runs."""
    suite_id = visit.request.path_params["suiteId"]
    versions = test_set_pulls.versions(visit.ctx, suite_id)
    chosen = visit.request.query_params.get("version") or versions[-1].version
    current = next((v for v in versions if v.version == chosen), versions[-1])
    cursor = visit.cursor(f"pulled {suite_id} {current.version}")
    cases = test_set_pulls.page(
        visit.ctx, suite_id, current.version, limit=CASES_PAGE, cursor=cursor
    )
    first = [c for c in cases.items if isinstance(c, dict)]
    shown = [set_views.pulled_case(case, i) for i, case in enumerate(first)]
    given = [(v.version, v.case_count) for v in versions]
    return visit.render(
        "pulled_set.html",
        status,
        suite_id=suite_id,
        current=current,
        source=set_views.source_of(current),
        version_rows=set_views.version_rows(visit.ctx, suite_id, given),
        cases=shown,
        more=signed_next(cases),
        form=try_form(visit, subject_of(first)),
        **runs_on(visit, suite_id),
        errors=errors or {},
    )


def signed_next(cases: Page[T]) -> str | None:
    """The next page's cursor, when there is one (signed in the template)."""
    return cases.next_cursor if cases.has_more else None


def subject_of(cases: list[JSONObject]) -> JSONObject:
    """What a pulled set's cases ran, from its first case: an agent, or a flow."""
    case = cases[0] if cases else {}
    run, subject = object_of(case.get("run")), object_of(case.get("subject"))
    if run.get("flowId"):
        return {"kind": "flow", "id": run["flowId"]}
    if run.get("agentId"):
        return {"kind": "agent", "id": run["agentId"]}
    return {"kind": subject.get("kind", "agent"), "id": subject.get("id")}


async def agent_set(
    visit: Visit, errors: dict[str, str] | None = None, status: int = 200
) -> Response:
    """`/console/test-cases/agents/{id}`: the agent's test set, active and retired cases."""
    agent_id = visit.request.path_params["agentId"]
    summary = test_sets.get(visit.ctx, agent_id)
    cursor = visit.cursor(f"agent {agent_id}")
    cases = test_sets.list_cases(
        visit.ctx, agent_id, None, include_retired=True, limit=100, cursor=cursor
    )
    return visit.render(
        "agent_set.html",
        status,
        agent_id=agent_id,
        test_set=summary,
        cases=cases,
        questions=questions_of(visit, [case.run_id for case in cases.items]),
        runs_to_pick=to_pick(visit, agent_id),
        form=TryForm("agent", agent_id, agent_versions(visit, agent_id), {}, {}),
        **runs_on(visit, summary.id),
        values=dict(visit.form or {}),
        errors=errors or {},
    )


ADD_FIELDS = {
    "runId": "run",
    "items/0/key": "key",
    "items/0/pointer": "pointer",
    "items/0/rank": "rank",
}
"""The Add a case form's field for each place in the `addCase` body a refusal may name."""


async def add_case(visit: Visit) -> Response:
    """`POST …/cases`: a hand case on one of the agent's runs, expecting one item's verdict;
    the form is an `addCase` body, parsed and added as the API does."""
    agent_id = visit.request.path_params["agentId"]
    rank = visit.field("rank")
    item = forms.present(
        key=visit.field("key") or None,
        pointer=visit.field("pointer"),
        rank=forms.number_text(rank) if rank else None,
        verdict=visit.field("verdict"),
    )
    data = forms.present(runId=visit.field("run") or None, items=[item])
    try:
        body = forms.body_of(AddCaseBody, data)
        forms.written(visit.ctx, lambda: add_hand_case(visit.ctx, agent_id, body))
    except KindgiError as error:
        field = ADD_FIELDS.get(str(error.details.get("field")), "add")
        return await agent_set(visit, {field: forms.reason_of(error)}, error.status)
    return redirect(f"/console/test-cases/agents/{agent_id}")


async def retire(visit: Visit) -> Response:
    """`POST …/cases/{caseId}/retire`: retire a case, with the reason (a `retireCase` body)."""
    agent_id, case_id = visit.request.path_params["agentId"], visit.request.path_params["caseId"]
    try:
        body = forms.body_of(RetireCaseBody, forms.present(reason=visit.field("reason") or None))
        forms.written(
            visit.ctx, lambda: test_sets.retire_case(visit.ctx, agent_id, case_id, body.reason)
        )
    except KindgiError as error:
        return await agent_set(visit, {case_id: error.message}, error.status)
    return redirect(f"/console/test-cases/agents/{agent_id}")
