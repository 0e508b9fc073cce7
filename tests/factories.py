"""Recorded runs and an app without a pack service, for tests of what happens after a run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from examples_committed import QUESTIONS as QUESTIONS  # re-exported for the API tests
from starlette.testclient import TestClient

from kindgi_dev.app import context_of, create_app
from kindgi_dev.domain.segments import Segment
from kindgi_dev.runtime.agent_turn import TurnOutcome
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.runtime.tool_calls import ToolCallRecord
from kindgi_dev.services import catalog, runs
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings
from kindgi_dev.store import runs as run_store

AGENT = "acme-ops.article-picker"
SEARCH = "acme-ops.search-articles"
LOG = "acme-ops.log-suggestion"

TITLES = {
    "kb-101": "Reset your password",
    "kb-102": "Change the email on your account",
    "kb-103": "Turn on two-step sign-in",
    "kb-201": "Request a refund",
    "kb-202": "Update your payment method",
    "kb-203": "Read your invoice",
    "kb-301": "Track your package",
    "kb-302": "Change the delivery address",
    "kb-303": "Report a damaged package",
}


def tool_manifests() -> list[dict[str, Any]]:
    """The example pack's two tools as the index lists them."""
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    return [
        {"id": SEARCH, "version": "0.1.0", "description": "Searches the help centre.",
         "input": schema, "output": {"type": "object"}, "mutating": False,
         "effects": [{"kind": "reads", "resource": "help-centre"}], "modulePath": "tools/s.py"},
        {"id": LOG, "version": "0.1.0", "description": "Logs a suggestion.",
         "input": {"type": "object"}, "output": {"type": "object"},
         "effects": [{"kind": "writes", "resource": "suggestions"}], "modulePath": "tools/l.py"},
    ]  # fmt: skip


def agent_manifest(version: str = "0.1.0") -> dict[str, Any]:
    """The article picker at a version."""
    return {
        "id": AGENT, "version": version, "name": "Article picker",
        "instructions": "Call acme-ops.search-articles and answer with articles.",
        "capabilities": [], "tools": [{"id": SEARCH, "version": "0.1.0"},
                                      {"id": LOG, "version": "0.1.0"}],
        "output": {"schema": {"type": "object"}}, "modulePath": "agents/a.py",
        "guardrails": [], "retrieval": [], "parameters": [], "settings": [],
    }  # fmt: skip


def register_pack(ctx: Context, versions: tuple[str, ...] = ("0.1.0",)) -> None:
    """Register the article picker's versions and tools as an index would."""
    index = PackIndex(
        pack_id="acme-ops", pack_version="0.1.0", artifact_version="20260101.1",
        tools=tool_manifests(), agents=[agent_manifest(v) for v in versions], flows=[],
        guardrails=[], file_errors=[], path=Path("index.json"), warnings=[],
    )  # fmt: skip
    catalog.register(ctx, index)


def turn_output(question: str, articles: list[str], answer: str | None = None) -> TurnOutcome:
    """What the picker's turn recorded: a search, its result, the articles and a text."""
    picked = [{"id": a, "title": TITLES[a]} for a in articles]
    call = ToolCallRecord(0, "call_1", SEARCH, "0.1.0", {"query": question},
                          {"articles": picked}, None, "live")  # fmt: skip
    text = answer or "These articles should help: " + ", ".join(articles) + "."
    appended = [
        {"role": "user", "content": question},
        {"role": "agent", "content": None,
         "toolCalls": [{"id": "call_1", "toolId": SEARCH, "arguments": {"query": question}}]},
        {"role": "tool", "content": {"articles": picked},
         "toolCall": {"toolId": SEARCH, "invocationId": "call_1"}},
        {"role": "agent", "content": text},
    ]  # fmt: skip
    return TurnOutcome(
        appended=appended, response=appended[-1], output={"articles": picked}, tool_calls=[call],
        usage={"steps": 2, "promptTokens": 0, "completionTokens": 0, "totalCostUsd": 0,
               "durationMs": 1},
        provider={"id": "function", "model": "picker"},
    )  # fmt: skip


def recorded_run(
    ctx: Context,
    question: str,
    articles: list[str] | None = None,
    *,
    version: str = "0.1.0",
    project_id: str | None = None,
    replay_of: str | None = None,
    finish: bool = True,
    segments: list[dict[str, str]] | None = None,
) -> str:
    """A finished run of the article picker, as kindgi dev records one; its id."""
    agent = catalog.get_agent(ctx, AGENT, version)
    project = project_id or ctx.db.one("SELECT id FROM projects WHERE is_default = 1")["id"]
    path = None if segments is None else [Segment(**segment) for segment in segments]
    run = runs.open_run(
        ctx, agent, project, {"userMessage": question}, started_by="person", via="explicit",
        replay_of=replay_of, segments=path,
    )  # fmt: skip
    if finish:
        outcome = turn_output(question, articles or QUESTIONS[question])
        runs.record_outcome(ctx, run["id"], outcome, [], {SEARCH: {}})
    return str(run["id"])


@contextmanager
def served(
    tmp_path: Path,
    versions: tuple[str, ...] = ("0.1.0",),
    models_file: Path | None = None,
    env: dict[str, str] | None = None,
    pyproject_extra: str = "",
) -> Iterator[tuple[TestClient, Context]]:
    """An app on a temp folder (no pack service), the picker registered; client and context."""
    pyproject = '[tool.kindgi.pack]\nid = "acme-ops"\n' + pyproject_extra
    (tmp_path / "pyproject.toml").write_text(pyproject)
    settings = Settings(
        pack_dir=tmp_path, start_pack=False, watch=False, models_file=models_file, env=env or {}
    )
    app = create_app(settings)
    ctx = context_of(app)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        register_pack(ctx, versions)
        yield client, ctx


def tutorial_runs(ctx: Context) -> dict[str, str]:
    """The spec's three runs on 0.1.0: question → run id."""
    return {question: recorded_run(ctx, question) for question in QUESTIONS}


UNCORRECTABLE = [
    ("unknown", 404, "run-not-found"),
    ("running", 409, "run-not-finished"),
    ("erased", 410, "run-erased"),
]
"""Runs no one may correct: their kind, and the status and code that refuse them."""


def uncorrectable_run(ctx: Context, runs: dict[str, str], kind: str) -> str:
    """A run id of one kind of `UNCORRECTABLE`, made from the tutorial's runs."""
    password = next(iter(QUESTIONS))
    if kind == "unknown":
        return "00000000-0000-4000-8000-000000000000"
    if kind == "running":
        return recorded_run(ctx, password, finish=False)
    run_store.update(ctx.db, runs[password], {"content_erased_at": "2026-01-01T00:00:00.000Z"})
    return runs[password]
