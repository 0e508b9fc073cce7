"""Spec statements checked against the real `kindgi dev` through the official client.

One server for the module; each test works in a project of its own, so their test sets
and suites don't mix.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from devserver import KINDGI, DevServer, clean_env, copy_example, start
from kindgi.client import Kindgi

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

AGENT = "acme-ops.article-picker"
QUESTIONS = {
    "I forgot my password and can't sign in.": ["kb-101", "kb-102", "kb-103"],
    "I was charged twice for one order. How do I get my money back?": [
        "kb-201",
        "kb-203",
        "kb-202",
    ],
    "My package hasn't arrived yet. Where is it?": ["kb-301", "kb-303", "kb-201"],
}
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?"
)
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
    running = start(copy_example(tmp_path_factory.mktemp("conformance") / "article-picker"))
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


def cli(server: DevServer, *args: str) -> Any:
    """Our CLI in the pack folder; its JSON answer."""
    done = subprocess.run(
        [KINDGI, *args],
        cwd=server.pack,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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
        by_cli = cli(server, "test-sets", "cases", set_id, f"--version={version}")
        assert [c["id"] for c in by_cli["data"]] == [c["id"] for c in cases]
    for other in ("1", "3.0.0"):
        missing = http.get(f"/v1/test-sets/{set_id}/versions/{other}/cases")
        assert (missing.status_code, missing.json()["error"]["code"]) == (
            404,
            "test-set-version-not-found",
        )
