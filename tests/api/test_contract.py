"""The contract's operations as the official client and other callers use them.

Every GET of `openapi-subset.json` takes all its documented query parameters, and the
official client (in-process, through the test client) parses what kindgi dev answers.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from factories import AGENT, QUESTIONS, SEARCH, served, tutorial_runs
from kindgi.client import Kindgi, comparison_of

CONTRACT = Path(__file__).resolve().parents[1] / "contract" / "openapi-subset.json"
ANY_ID = "00000000-0000-4000-8000-000000000000"


def sample(spec: dict[str, Any], schema: dict[str, Any]) -> str:
    """A well-typed query value for a parameter's schema."""
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].split("/")[-1]]
    if "enum" in schema:
        return str(schema["enum"][-1])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "array":
        return sample(spec, schema["items"])
    if kind == "boolean":
        return "true"
    if kind == "integer":
        return str(max(1, schema.get("minimum", 1)))
    if schema.get("format") == "uuid":
        return ANY_ID
    if schema.get("format") == "date-time":
        return "2026-01-01T00:00:00.000Z"
    return "x"


def test_every_get_takes_its_documented_query_parameters(tmp_path: Path) -> None:
    spec = json.loads(CONTRACT.read_text())
    refused = []
    with served(tmp_path) as (client, ctx):
        tutorial_runs(ctx)
        for path, operations in spec["paths"].items():
            operation = operations.get("get")
            if operation is None:
                continue
            params = {p["name"]: sample(spec, p["schema"]) for p in operation.get("parameters", [])
                      if p["in"] == "query" and p["name"] != "cursor"}  # fmt: skip
            url = path
            for p in operation.get("parameters", []):
                if p["in"] == "path":
                    url = url.replace("{" + p["name"] + "}", ANY_ID)
            answer = client.get(url, params=params)
            if answer.status_code not in (200, 404, 410):
                refused.append((path, answer.status_code, answer.text[:200]))
    assert refused == []


def test_the_official_client_reads_what_kindgi_dev_answers(tmp_path: Path) -> None:
    with served(tmp_path) as (test_client, ctx):
        run_ids = tutorial_runs(ctx)
        kindgi = Kindgi(base_url=str(test_client.base_url), token=ctx.identity.token,
                        http_client=test_client)  # fmt: skip
        run = kindgi.runs.get(run_ids[next(iter(QUESTIONS))])
        assert run.agent is not None and run.agent.id == AGENT
        assert len(kindgi.runs.list(include="output").data) == 3
        assert kindgi.runs.journal(str(run.id)).data[-1].kind == "run.completed"
        assert kindgi.agents.get(AGENT).version == "0.1.0"
        assert [a.version for a in kindgi.agents.list_versions(AGENT).data] == ["0.1.0"]
        assert kindgi.tools.get(SEARCH).mutating is False
        conversation = kindgi.conversations.get(str(run.agent.conversation_id))
        assert conversation.turn_count == 1
        assert len(kindgi.conversations.messages(str(conversation.id)).data) == 4
        for question, run_id in run_ids.items():
            for rank, article in enumerate(QUESTIONS[question]):
                kindgi.judgments.create(
                    run_id=run_id,
                    verdict="yes" if rank == 0 else "no",
                    item={"key": article, "rank": rank, "pointer": f"/output/articles/{rank}"},
                )
        judged = kindgi.judgments.list(run_id=str(run.id)).data
        assert sorted(j.item.key for j in judged) == ["kb-101", "kb-102", "kb-103"]
        assert kindgi.judgments.get(judged[0].id).run.run_id == str(run.id)
        project = kindgi.projects.get_default().id
        built = kindgi.eval_suites.build_from_judgments(
            "acme.picks", version="1.0.0", project_id=project, agent_id=AGENT
        )
        assert (built.case_count, built.truncated) == (3, False)
        assert len(kindgi.eval_suites.list_cases("acme.picks", "1.0.0").data) == 3
        started = kindgi.eval_runs.start(
            "acme.picks",
            project_id=project,
            dry_run=True,
            agent_ref={"agent_id": AGENT, "version": "0.1.0"},
        )
        evaluated = kindgi.eval_runs.get(str(started.run_id))
        for _ in range(100):
            if evaluated.status not in ("pending", "running"):
                break
            time.sleep(0.02)
            evaluated = kindgi.eval_runs.get(str(started.run_id))
    assert evaluated.dry_run is True and evaluated.status == "completed"
    assert comparison_of(evaluated) is None
