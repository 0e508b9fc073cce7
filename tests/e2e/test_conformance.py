"""Spec statements checked against the real `kindgi dev` through the official client.

One server for the module; each test works in a project of its own, so their test sets
and suites don't mix.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from devserver import DevServer, copy_example, kindgi_json, start
from examples_committed import QUESTIONS
from kindgi.client import Kindgi

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

AGENT = "acme-ops.article-picker"
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?"
)
MODELS = '''\
"""The example's model, with a greeting it answers without a tool, and moods set in mode.txt.

`eager` searches even for a greeting and logs what it suggests after a search; `concise`
answers as the example's 0.2.0 does.
"""

import importlib.util
import pathlib
from dataclasses import replace

from kindgi_dev.models import Reply, ToolCall, model

_here = pathlib.Path(__file__).parent
_spec = importlib.util.spec_from_file_location("_picker_models", _here / "dev_models.py")
_picker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_picker)
LOG = "acme-ops.log-suggestion"


@model(default=True)
def moody_picker(turn):
    mode = (_here / "mode.txt").read_text().strip() if (_here / "mode.txt").exists() else ""
    results = turn.tool_results()
    if mode == "concise":
        return _picker.article_picker(replace(turn, instructions=_picker.ONLY_WHAT_ANSWERS))
    if mode != "eager":
        if turn.question().startswith("Hello") and not results:
            return Reply(text="Hello! Ask me about your account, orders or deliveries.",
                         output={"articles": []})
        return _picker.article_picker(turn)
    reply = _picker.article_picker(turn)
    if results and not any(m.tool_id == LOG for m in results):
        logged = {"question": turn.question(), "articles": reply.output["articles"]}
        return Reply(tool_calls=[ToolCall(LOG, logged)])
    return reply
'''
REGISTRY_KINDS = {
    "accuracy",
    "pairwise",
    "regression",
    "human-review",
    "benchmark",
    "custom",
    "corrections",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    pack = copy_example(tmp_path_factory.mktemp("conformance") / "article-picker")
    (pack / "moody_models.py").write_text(MODELS)
    running = start(pack, "--models", "moody_models.py")
    yield running
    running.stop()


@pytest.fixture()
def http(server: DevServer) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


@pytest.fixture()
def project(http: httpx.Client) -> str:
    """A fresh project, so the test's corrections are its agent's only ones there."""
    name = f"p-{uuid.uuid4().hex[:8]}"
    made = http.post("/v1/projects", json={"name": name, "slug": name})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def corrected_runs(http: httpx.Client, project: str) -> dict[str, str]:
    """The tutorial's three runs in the project, each corrected: first article right."""
    run_ids = {}
    for question, articles in QUESTIONS.items():
        run = http.post(
            "/v1/runs",
            json={"agent": AGENT, "projectId": project, "input": {"userMessage": question}},
        )
        assert run.status_code in (200, 201), run.text
        run_ids[question] = run.json()["id"]
        items = [
            {
                "key": a,
                "pointer": f"/output/articles/{n}",
                "rank": n,
                "verdict": "right" if n == 0 else "wrong",
            }
            for n, a in enumerate(articles)
        ]
        made = http.post("/v1/corrections", json={"runId": run_ids[question], "items": items})
        assert made.status_code == 201, made.text
    return run_ids


def finished(client: Kindgi, run_id: str) -> Any:
    """Poll an eval run until it stops running."""
    run = client.eval_runs.get(run_id)
    while run.status in ("pending", "running"):
        time.sleep(0.1)
        run = client.eval_runs.get(run_id)
    return run


def registry_valid(entry: dict[str, Any]) -> bool:
    """Whether an entry holds the registry page's schema: required fields, semver, kinds."""
    required = {"id": str, "tenantId": str, "version": str, "kind": str, "spec": dict}
    if any(not isinstance(entry.get(name), kind) for name, kind in required.items()):
        return False
    if "description" in entry and not isinstance(entry["description"], str):
        return False
    return SEMVER.fullmatch(entry["version"]) is not None and entry["kind"] in REGISTRY_KINDS


def test_frozen_versions_are_one_semver_that_resolves_everywhere(
    server: DevServer, http: httpx.Client, project: str
) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    corrected_runs(http, project)
    set_id = f"{AGENT}~{project}"
    listed = http.get("/v1/test-sets", params={"kind": "corrections", "limit": 100}).json()
    assert set_id not in [e["id"] for e in listed["data"]]
    unfrozen = http.get(f"/v1/test-sets/{set_id}")
    assert (unfrozen.status_code, unfrozen.json()["error"]["code"]) == (404, "test-set-not-found")

    versions = []
    for _ in range(2):
        started = http.post(
            f"/v1/agents/{AGENT}/test-set/runs",
            json={"projectId": project, "agentRef": {"agentId": AGENT}},
        )
        assert started.status_code == 201, started.text
        run = finished(client, started.json()["runId"])
        assert run.status == "completed"
        frozen = http.get(f"/v1/eval-runs/{run.run_id}").json()["frozenVersion"]
        assert frozen == {"testSetId": set_id, "version": run.suite_version}
        versions.append(run.suite_version)
    assert versions == ["1.0.0", "2.0.0"]
    got = http.get(f"/v1/agents/{AGENT}/test-set", params={"projectId": project}).json()
    assert got["frozenVersion"] == {"testSetId": set_id, "version": "2.0.0"}

    entry = http.get(f"/v1/test-sets/{set_id}").json()
    assert entry["version"] == "2.0.0" and registry_valid(entry)
    listed = http.get("/v1/test-sets", params={"kind": "corrections", "limit": 100}).json()
    assert [e["version"] for e in listed["data"] if e["id"] == set_id] == ["2.0.0"]
    assert all(registry_valid(e) for e in listed["data"])
    history = http.get(f"/v1/test-sets/{set_id}/versions").json()["data"]
    assert [v["version"] for v in history] == versions
    for version in versions:
        cases = http.get(f"/v1/test-sets/{set_id}/versions/{version}/cases").json()["data"]
        assert len(cases) == 3
        by_cli = kindgi_json(server, "test-sets", "cases", set_id, f"--version={version}")
        assert [c["id"] for c in by_cli["data"]] == [c["id"] for c in cases]
    for other in ("1", "3.0.0"):
        missing = http.get(f"/v1/test-sets/{set_id}/versions/{other}/cases")
        assert (missing.status_code, missing.json()["error"]["code"]) == (
            404,
            "test-set-version-not-found",
        )


PASSWORD, CHARGED, PACKAGE = QUESTIONS
HELLO = "Hello there."
SEARCH, LOG = "acme-ops.search-articles", "acme-ops.log-suggestion"


@pytest.fixture()
def mode(server: DevServer) -> Iterator[Path]:
    """The file that sets the model's mood; back to the plain picker after the test."""
    path = server.pack / "mode.txt"
    yield path
    path.unlink(missing_ok=True)


def start_run(http: httpx.Client, project: str, question: str) -> dict[str, Any]:
    """A finished run of the picker in the project."""
    body = {"agent": AGENT, "projectId": project, "input": {"userMessage": question}}
    run = http.post("/v1/runs", json=body)
    assert run.status_code in (200, 201), run.text
    return dict(run.json())


def correct(http: httpx.Client, run: dict[str, Any], **parts: Any) -> str:
    """Correct a run: its articles as the tutorial does, plus the parts given; the id."""
    articles = run["output"]["output"]["articles"]
    items = [
        {
            "key": a["id"],
            "pointer": f"/output/articles/{n}",
            "rank": n,
            "verdict": "right" if n == 0 else "wrong",
        }
        for n, a in enumerate(articles)
    ]
    if not items:
        last = len(run["output"]["appended"]) - 1
        items = [{"key": "answer", "pointer": f"/appended/{last}/content", "verdict": "right"}]
    made = http.post("/v1/corrections", json={"runId": run["id"], "items": items, **parts})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def try_on(client: Kindgi, http: httpx.Client, path: str, project: str, **options: Any) -> Any:
    """Start a run on the test cases at `path` and wait for its result."""
    body = {"projectId": project, "agentRef": {"agentId": AGENT}, **options}
    started = http.post(path, json=body)
    assert started.status_code == 201, started.text
    run = finished(client, started.json()["runId"])
    assert run.status == "completed"
    return http.get(f"/v1/eval-runs/{run.run_id}").json()["result"]


def checks(result: dict[str, Any]) -> dict[tuple[str, str], bool]:
    """Each checked correction's pass, by (correction id, part)."""
    return {
        (c["judgmentId"], c["part"]): c["pass"]
        for case in result["perCase"]
        for c in case.get("corrections", [])
    }


def test_what_it_should_have_done_is_checked_alike_on_suites_and_test_sets(
    server: DevServer, http: httpx.Client, project: str, mode: Path
) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    experts = http.post(
        "/v1/judge-classes",
        json={
            "scope": {"kind": "project", "projectId": project},
            "name": "experts",
            "weight": 1,
            "assertableBy": {"principalKinds": ["user"]},
        },
    )
    assert experts.status_code == 201, experts.text
    password, hello = start_run(http, project, PASSWORD), start_run(http, project, HELLO)
    package = start_run(http, project, PACKAGE)
    assert [c["toolId"] for c in hello["output"]["appended"][1:] if "toolCalls" in c] == []
    right_tools = correct(http, password, decisions={"verdict": "right"})
    no_tools = correct(http, hello, decisions={"verdict": "right"})
    by_expert = correct(
        http,
        package,
        judgeClassId=experts.json()["id"],
        decisions={"verdict": "wrong", "shouldCall": [{"toolId": SEARCH}]},
        answer={"verdict": "right"},
    )
    suite = f"acme.picks-{project[:8]}"
    built = http.post(
        f"/v1/eval-suites/{suite}/versions/from-judgments",
        json={"version": "1.0.0", "projectId": project, "agentId": AGENT},
    )
    assert built.json()["caseCount"] == 3, built.text

    mode.write_text("eager")
    on_suite = try_on(client, http, f"/v1/eval-suites/{suite}/runs", project, reads="live")
    on_set = try_on(client, http, f"/v1/agents/{AGENT}/test-set/runs", project, reads="live")
    expected = {
        (right_tools, "decisions"): False,
        (no_tools, "decisions"): False,
        (by_expert, "decisions"): True,
    }
    assert checks(on_suite) == expected
    assert checks(on_set) == {**expected, (by_expert, "answer"): True}
    assert on_suite["summary"]["corrections"] == {"checked": 3, "passed": 1}
    for result in (on_suite, on_set):
        greeting = next(
            c
            for c in result["perCase"]
            if any(k["judgmentId"] == no_tools for k in c["corrections"])
        )
        assert [(t["toolId"], t["source"]) for t in greeting["tools"]] == [
            (SEARCH, "refused"),
            (LOG, "refused"),
        ]
        extra = next(
            c
            for c in result["perCase"]
            if any(k["judgmentId"] == right_tools for k in c["corrections"])
        )
        assert extra["correctionDifferences"][0]["differences"] == [
            {"kind": "count", "toolId": LOG, "expected": 0, "actual": 1}
        ]
    pass_rate = on_set["summary"]["metrics"]["passRate"]
    assert (pass_rate["n"], pass_rate["weight"], pass_rate["candidate"]) == (3, 4, 0.5)

    experts_only = try_on(
        client, http, f"/v1/eval-suites/{suite}/runs", project, classWeights="restricted-only"
    )
    assert experts_only["summary"]["corrections"] == {"checked": 1, "passed": 1}
    assert checks(experts_only) == {(by_expert, "decisions"): True}


def test_replays_take_corrections_that_a_rescore_scores_and_the_test_set_leaves_out(
    server: DevServer, http: httpx.Client, project: str, mode: Path
) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    corrected_runs(http, project)
    suite = f"acme.picks-{project[:8]}"
    built = http.post(
        f"/v1/eval-suites/{suite}/versions/from-judgments",
        json={"version": "1.0.0", "projectId": project, "agentId": AGENT},
    )
    assert built.json()["caseCount"] == 3, built.text
    mode.write_text("concise")
    body = {"projectId": project, "agentRef": {"agentId": AGENT}}
    started = http.post(f"/v1/eval-suites/{suite}/runs", json=body).json()["runId"]
    tried = http.get(f"/v1/eval-runs/{finished(client, started).run_id}").json()["result"]
    assert tried["summary"]["metrics"]["judgedCoverage"]["candidate"] == 0.5
    new = [case["changes"]["new"] for case in tried["perCase"]]
    assert new == [[{"key": "answer", "pointer": "/appended/3/content"}]] * 3
    right, wrong, _ = (case["runIds"][0] for case in tried["perCase"])
    answer = {"key": "answer", "pointer": "/appended/3/content"}
    made = http.post(
        "/v1/corrections", json={"runId": right, "items": [{**answer, "verdict": "right"}]}
    )
    assert made.status_code == 201, made.text
    judged = client.judgments.create(run_id=wrong, verdict="no", item=answer)
    assert judged.run_id == wrong

    set_cases = http.get(f"/v1/agents/{AGENT}/test-set/cases", params={"projectId": project})
    assert [c["runId"] for c in set_cases.json()["data"]].count(right) == 0
    assert len(set_cases.json()["data"]) == 3
    hand = http.post(
        f"/v1/agents/{AGENT}/test-set/cases",
        json={"runId": right, "items": [{**answer, "verdict": "right"}]},
    )
    assert (hand.status_code, hand.json()["error"]["details"]["field"]) == (400, "runId")

    rescored = http.post(f"/v1/eval-runs/{started}/rescore", json={})
    assert rescored.status_code == 201, rescored.text
    again = http.get(f"/v1/eval-runs/{rescored.json()['runId']}").json()["result"]
    assert again["summary"]["rescoreOf"] == started
    metrics = again["summary"]["metrics"]
    assert metrics["judgedCoverage"]["candidate"] == pytest.approx(5 / 6)
    assert metrics["weightedYesShare"]["candidate"] == pytest.approx(4 / 5)
    assert metrics["weightedYesShare"]["freshWeight"] == 2
    fresh = [case["candidate"][0].get("fresh") for case in again["perCase"]]
    assert fresh == [
        {"yesWeight": 1, "totalWeight": 1, "items": 1},
        {"yesWeight": 0, "totalWeight": 1, "items": 1},
        None,
    ]


def test_our_client_reads_and_writes_the_04_resources(
    server: DevServer, http: httpx.Client, project: str
) -> None:
    from kindgi.client import ConflictError

    from kindgi_dev.client import Kindgi as Ours

    ours = Ours(base_url=server.url, token=server.token)
    run = start_run(http, project, PASSWORD)
    made = ours.corrections.create(
        run_id=run["id"],
        items=[{"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}],
    )
    added = ours.corrections.add_item(
        made.id, key="kb-102", pointer="/output/articles/1", rank=1, verdict="wrong"
    )
    assert [(i.key, i.verdict) for i in added.items] == [("kb-101", "right"), ("kb-102", "wrong")]
    assert ours.corrections.update(made.id, status="fixed").status == "fixed"
    assert ours.corrections.get(made.id).status == "fixed"
    assert [c.id for c in ours.corrections.list(run_id=run["id"]).data] == [made.id]

    hand = ours.agents.test_set.add_case(
        AGENT, run_id=run["id"], decisions={"verdict": "wrong", "mustNotCall": [LOG]}
    )
    assert hand.id.startswith("case-") and hand.expert is True
    test_set = ours.agents.test_set.get(AGENT, project_id=project)
    assert (test_set.cases.active, test_set.cases.retired, test_set.frozen_version) == (2, 0, None)
    cases = ours.agents.test_set.list_cases(AGENT, project_id=project)
    assert [(c.kind, c.id) for c in cases.data] == [("hand", hand.id), ("correction", made.id)]
    retired = ours.agents.test_set.retire_case(AGENT, hand.id, reason="the log tool is gone")
    assert retired.retired is not None and retired.retired.reason == "the log tool is gone"
    with pytest.raises(ConflictError) as again:
        ours.agents.test_set.retire_case(AGENT, hand.id, reason="twice")
    assert again.value.server_code == "test-case-retired"
    only_hand = ours.agents.test_set.list_cases(
        AGENT, project_id=project, include="retired", kind="hand"
    )
    assert [c.id for c in only_hand.data] == [hand.id]

    frozen = http.post(f"/v1/agents/{AGENT}/test-set/freeze", params={"projectId": project})
    version = ours.agents.test_set.get(AGENT, project_id=project).frozen_version
    assert version is not None and version.version == frozen.json()["version"] == "1.0.0"
    listed = ours.test_sets.list_cases(version.test_set_id, version.version)
    assert [c["id"] for c in listed.data] == [made.id]
    assert ours.runs.get(run["id"]).status == "completed"


def test_a_dry_run_reads_live_refuses_what_changes_things_and_stays_out_of_lists(
    server: DevServer, http: httpx.Client, project: str, mode: Path
) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    mode.write_text("eager")
    body = {
        "agent": AGENT,
        "projectId": project,
        "input": {"userMessage": PASSWORD},
        "options": {"dryRun": True},
    }
    answer = http.post("/v1/runs", json=body)
    assert answer.status_code == 201, answer.text
    dry = client.runs.get(answer.json()["id"])
    assert (dry.status, dry.dry_run) == ("completed", True)
    assert [a["id"] for a in dry.output["output"]["articles"]] == QUESTIONS[PASSWORD]
    results = [m for m in dry.output["appended"] if m["role"] == "tool"]
    assert [a["id"] for a in results[0]["content"]["articles"]][:3] == QUESTIONS[PASSWORD]
    assert results[1]["content"] == {
        "error": "dry run: this call changes things, so it was not carried out"
    }
    log = Path(tempfile.gettempdir()) / "acme-ops-suggestions.jsonl"
    assert str(dry.id) not in (log.read_text() if log.exists() else "")

    mode.unlink()
    wet = start_run(http, project, PASSWORD)
    scoped = {"scopeKind": "project", "scopeId": project}
    listed = http.get("/v1/runs", params=scoped).json()["data"]
    assert [r["id"] for r in listed] == [wet["id"]]
    listed = http.get("/v1/runs", params={**scoped, "includeDryRuns": "true"}).json()["data"]
    assert [(r["id"], r["dryRun"]) for r in listed] == [(wet["id"], False), (str(dry.id), True)]
    by_cli = kindgi_json(
        server,
        "runs",
        "start",
        f"--agent={AGENT}",
        f"--project={project}",
        "--dry-run",
        f"--input={json.dumps({'userMessage': CHARGED})}",
    )
    assert (by_cli["status"], by_cli["dryRun"]) == ("completed", True)


def test_eval_runs_take_a_seeded_sample_and_refuse_overrides_saying_why(
    server: DevServer, http: httpx.Client, project: str
) -> None:
    from kindgi.client import InvalidRequestError

    client = Kindgi(base_url=server.url, token=server.token)
    corrected_runs(http, project)
    suite = f"acme.picks-{project[:8]}"
    built = http.post(
        f"/v1/eval-suites/{suite}/versions/from-judgments",
        json={"version": "1.0.0", "projectId": project, "agentId": AGENT},
    )
    assert built.json()["caseCount"] == 3, built.text
    agent_ref = {"agent_id": AGENT}

    def part(name: str, seed: str) -> list[str]:
        sample = {"part": name, "seed": seed, "hold_out_share": 0.3}
        started = client.eval_runs.start(
            suite, project_id=project, agent_ref=agent_ref, sample=sample, dry_run=True
        )
        return [c["caseId"] for c in started.dry_run_preview["preview"]]

    held, search = part("hold-out", "seed-1"), part("search", "seed-1")
    assert (len(held), len(search)) == (1, 2)
    assert sorted(held + search) == sorted(
        c["caseId"]
        for c in http.get(f"/v1/eval-suites/{suite}/versions/1.0.0/cases").json()["data"]
    )
    assert part("hold-out", "seed-1") == held
    started = client.eval_runs.start(
        suite,
        project_id=project,
        agent_ref=agent_ref,
        sample={"part": "hold-out", "seed": "seed-1", "hold_out_share": 0.3},
    )
    summary = http.get(f"/v1/eval-runs/{finished(client, str(started.run_id)).run_id}").json()[
        "result"
    ]["summary"]
    assert summary["cases"] == 1
    assert summary["sample"] == {"part": "hold-out", "seed": "seed-1", "holdOutShare": 0.3}

    for overrides, field in (
        ({"settings": {"acme.weights": {"boost": 2}}}, "overrides/settings/acme.weights"),
        (
            {"prompts": {"acme.picker-prompt": {"template": "Pick."}}},
            "overrides/prompts/acme.picker-prompt",
        ),
    ):
        with pytest.raises(InvalidRequestError) as refused:
            client.eval_runs.start(
                suite, project_id=project, agent_ref=agent_ref, overrides=overrides
            )
        assert refused.value.server_code == "validation-failed"
        assert refused.value.details["field"] == field
    assert "pins no prompt block" in str(refused.value)
