"""The example pack in-process with several versions of the article picker saved, and the
tutorial's corrected runs of 0.1.0 built into a suite: what comparing two versions needs."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from flow_pack import EXAMPLE, QUESTIONS, InProcessPack, example_index
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

AGENT = "acme-ops.article-picker"
SEARCH = "acme-ops.search-articles"
SUITE = "acme.article-picks"
CONCISE = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the "
    "articles that answer it, most relevant first: one is often enough."
)
TWO = (
    "Call acme-ops.search-articles with the customer's question."
    " Answer with the two most relevant articles."
)
GONE = f"{AGENT} 0.2.5 can't run: it pins {SEARCH}@0.9.0, which the pack no longer serves."


def register_versions(ctx: Context) -> None:
    """0.2.0 keeps the right article only; 0.3.0 answers with two; 0.2.5 pins a search
    version the pack no longer serves (0.3.0 stays the latest)."""
    data = example_index()
    first = data["agents"][0]
    concise = {**copy.deepcopy(first), "version": "0.2.0", "instructions": CONCISE}
    two = {**copy.deepcopy(first), "version": "0.3.0", "instructions": TWO}
    gone = {**copy.deepcopy(two), "version": "0.2.5",
            "tools": [{"id": SEARCH, "version": "0.9.0"}, *first["tools"][1:]]}  # fmt: skip
    search = next(t for t in data["tools"] if t["id"] == SEARCH)
    catalog.register(ctx, PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="2",
        tools=[*data["tools"], {**search, "version": "0.9.0"}],
        agents=[first, concise, two, gone], flows=[], guardrails=[], file_errors=[],
        path=Path("index.json"), warnings=[],
    ))  # fmt: skip


def corrected_tutorial(client: Any) -> str:
    """The tutorial's three runs of 0.1.0, the first article marked right and the others
    wrong, built into `SUITE`; the default project's id. `client` is a TestClient or an
    httpx client with the token."""
    for question in QUESTIONS:
        run = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}})
        assert run.status_code == 201, run.text
        for rank, article in enumerate(run.json()["output"]["output"]["articles"]):
            body = {"runId": run.json()["id"], "verdict": "yes" if rank == 0 else "no",
                    "item": {"key": article["id"], "pointer": f"/output/articles/{rank}",
                             "rank": rank}}  # fmt: skip
            assert client.post("/v1/judgments", json=body).status_code == 201
    project = str(client.get("/v1/projects/default").json()["id"])
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    built = client.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text
    return project


@contextmanager
def over_http(tmp_path: Path) -> Iterator[tuple[str, Context, str]]:
    """The example served on a loopback port (its tools in-process), the tutorial corrected
    and the versions saved: its URL, context and default project."""
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    settings = Settings(pack_dir=tmp_path, start_pack=False, watch=False,
                        models_file=EXAMPLE / "dev_models.py")  # fmt: skip
    app = create_app(settings)
    ctx = context_of(app)
    data = example_index()
    with serve_app(app) as url:
        catalog.register(ctx, PackIndex(
            pack_id=data["packId"], pack_version=data["packVersion"],
            artifact_version=data["artifactVersion"], tools=data["tools"], agents=data["agents"],
            flows=data["flows"], guardrails=[], file_errors=[], path=Path("index.json"),
            warnings=[],
        ))  # fmt: skip
        ctx.runtime = InProcessPack(data)
        headers = {"Authorization": f"Bearer {ctx.identity.token}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
            project = corrected_tutorial(http)
        register_versions(ctx)
        yield url, ctx, project
