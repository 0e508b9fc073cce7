"""Test cases: the project's test sets, Build test cases from corrections, and each set's page.

A built set (a `judged` suite) shows its versions and cases; an agent's own test set shows
its active and retired cases, hand cases, Add a case and Retire.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from ..api.eval_suite_bodies import BuildJudgedSuiteBody
from ..api.eval_suites import selection_of
from ..api.test_sets import AddCaseBody, RetireCaseBody, add_hand_case
from ..domain.errors import KindgiError, ValidationFailed
from ..services import catalog, eval_runs, eval_suites, projects, test_sets
from . import forms
from .runs import agent_ids, questions_of, to_pick
from .web import Visit, redirect

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
        agent_sets=[test_sets.get(visit.ctx, agent) for agent in agent_ids(visit)],
        suites=eval_suites.judged_latest(visit.ctx),
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
        eval_suites.build_from_judgments(visit.ctx, suite_id, selection_of(given))
    except KindgiError as error:
        field = str(error.details.get("field") or "form")
        field = "subject" if field in ("agentId", "flowId") else field
        return await index(visit, {field: error.message}, error.status)
    return redirect(f"/console/test-cases/suites/{suite_id}?version={given.version}")


def runs_on(visit: Visit, suite_id: str) -> list[eval_runs.EvalRun]:
    """The runs on a set's test cases, newest first, with their summaries (the page shows
    no case, so none is read)."""
    page = eval_runs.list_page(visit.ctx, limit=50, cursor=None, filters={"suite_id": suite_id})
    return page.items


def agent_versions(visit: Visit, agent_id: str) -> list[str]:
    """An agent's versions, oldest first."""
    found = catalog.list_versions(
        visit.ctx, "agent", agent_id, limit=100, cursor=None, include_tombstoned=False
    )
    return [entry["version"] for entry in found.items]


def flow_agents(flow: dict[str, Any]) -> list[str]:
    """The agents a flow's steps run: its agent nodes and its pinned agents."""
    named = [node.get("ref") for node in flow.get("nodes") or [] if node.get("kind") == "agent"]
    pinned = list(((flow.get("pins") or {}).get("agents") or {}).keys())
    return sorted({str(a).partition("@")[0] for a in [*named, *pinned] if a})


def try_form(visit: Visit, subject: dict[str, Any]) -> dict[str, Any]:
    """What the Try a version form offers for a set's subject (an agent, or a flow)."""
    if subject.get("kind") == "flow":
        flow = catalog.get_flow(visit.ctx, subject["id"])
        versions = [
            entry["version"]
            for entry in catalog.list_versions(
                visit.ctx, "flow", subject["id"], limit=100, cursor=None, include_tombstoned=False
            ).items
        ]
        pickers = {agent: agent_versions(visit, agent) for agent in flow_agents(flow)}
        return {"kind": "flow", "id": subject["id"], "versions": versions, "agents": pickers}
    return {
        "kind": "agent",
        "id": subject.get("id"),
        "versions": agent_versions(visit, str(subject.get("id"))),
    }


async def suite(visit: Visit, errors: dict[str, str] | None = None, status: int = 200) -> Response:
    """`/console/test-cases/suites/{id}`: versions, one version's cases, Try, and the runs."""
    suite_id = visit.request.path_params["suiteId"]
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
        subject=subject,
        form=try_form(visit, subject),
        eval_runs=runs_on(visit, suite_id),
        errors=errors or {},
    )


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
        form={"kind": "agent", "id": agent_id, "versions": agent_versions(visit, agent_id)},
        eval_runs=runs_on(visit, summary.id),
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
        add_hand_case(visit.ctx, agent_id, body)
    except KindgiError as error:
        field = ADD_FIELDS.get(str(error.details.get("field")), "add")
        return await agent_set(visit, {field: forms.reason_of(error)}, error.status)
    return redirect(f"/console/test-cases/agents/{agent_id}")


async def retire(visit: Visit) -> Response:
    """`POST …/cases/{caseId}/retire`: retire a case, with the reason (a `retireCase` body)."""
    agent_id, case_id = visit.request.path_params["agentId"], visit.request.path_params["caseId"]
    try:
        body = forms.body_of(RetireCaseBody, forms.present(reason=visit.field("reason") or None))
        test_sets.retire_case(visit.ctx, agent_id, case_id, body.reason)
    except KindgiError as error:
        return await agent_set(visit, {case_id: error.message}, error.status)
    return redirect(f"/console/test-cases/agents/{agent_id}")
