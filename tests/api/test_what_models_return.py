"""Issue 22: what a model or a tool returned is stored so every read of it renders: no
request's checks saw it, so it may nest hundreds of levels, hold a NaN or a lone surrogate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from factories import AGENT, QUESTIONS, served, turn_output

from kindgi_dev.domain.stored_values import COPY_DEPTH, cut_marker
from kindgi_dev.services import catalog, runs

PASSWORD = next(iter(QUESTIONS))


def nested(levels: int) -> list[Any]:
    """A list `levels` deep."""
    outer: list[Any] = []
    inner = outer
    for _ in range(levels - 1):
        inner.append([])
        inner = inner[0]
    return outer


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def test_an_output_too_deep_with_nan_and_a_lone_surrogate_reads_back(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        agent = catalog.get_agent(ctx, AGENT, "0.1.0")
        run = runs.open_run(ctx, agent, project, {"userMessage": PASSWORD},
                            started_by="person", via="explicit")  # fmt: skip
        outcome = turn_output(PASSWORD, ["kb-101", "kb-102"])
        output = {**outcome.output, "trace": nested(400), "score": float("nan"),
                  "note": "half a pair: \ud83d"}  # fmt: skip
        runs.record_outcome(ctx, run["id"], dataclasses.replace(outcome, output=output), [], {})

        answer = client.get(f"/v1/runs/{run['id']}")
        assert answer.status_code == 200, answer.text
        kept = answer.json()["output"]["output"]
        assert kept["score"] is None
        assert kept["note"] == "half a pair: \ufffd"
        assert depth(kept["trace"]) < COPY_DEPTH
        assert cut_marker(COPY_DEPTH) in json.dumps(kept["trace"])
        assert [a["id"] for a in kept["articles"]] == ["kb-101", "kb-102"]

        items = [{"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}]
        made = client.post("/v1/corrections", json={"runId": run["id"], "items": items})
        assert made.status_code == 201, made.text
        for path in ("/v1/corrections", f"/v1/agents/{AGENT}/test-set/cases"):
            read = client.get(path, params={"projectId": project})
            assert read.status_code == 200, (path, read.text)
        frozen = client.post(f"/v1/agents/{AGENT}/test-set/freeze")
        assert frozen.status_code == 201, frozen.text
        version = frozen.json()
        path = f"/v1/test-sets/{version['testSetId']}/versions/{version['version']}/cases"
        cases = client.get(path)
        assert cases.status_code == 200, cases.text
        copied = cases.json()["data"][0]["run"]["output"]["output"]
        assert copied["score"] is None and depth(copied["trace"]) < COPY_DEPTH
