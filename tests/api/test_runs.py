"""Runs through the API: a model that fails fails the run with its message; lists and journal."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from desk_pack import desk_served, turn
from factories import AGENT, recorded_run, register_pack, served, tutorial_runs
from starlette.testclient import TestClient
from stubs.openai_stub import OpenAIStub

from kindgi_dev.app import context_of, create_app
from kindgi_dev.services import conversations
from kindgi_dev.services.context import Context
from kindgi_dev.services.runs import record
from kindgi_dev.settings import Settings
from kindgi_dev.store import runs as run_store


@pytest.fixture()
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub().serve()
    yield server
    server.stop()


def test_a_model_answering_500_fails_the_run_with_its_message(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": stub.base_url}
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, env=env))
    ctx = context_of(app)
    stub.queue({"error": {"message": "The model is overloaded", "type": "server_error"}},
               status=500)  # fmt: skip
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        register_pack(ctx)
        answer = client.post(
            "/v1/runs", json={"agent": AGENT, "input": {"userMessage": "Where is it?"}}
        )
        listed = client.get("/v1/runs").json()["data"]
        journal = client.get(f"/v1/runs/{listed[0]['id']}/journal").json()["data"]
        stray = client.post(f"/v1/runs/{listed[0]['id']}/cancel")
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "model-invocation-failed"
    assert error["message"] == "The model is overloaded"
    assert error["details"]["runId"] == listed[0]["id"]
    assert listed[0]["status"] == "failed"
    assert listed[0]["failureMessage"] == "The model is overloaded"
    assert [entry["kind"] for entry in journal] == ["run.started", "run.failed"]
    assert stray.status_code == 409
    assert stray.json()["error"]["code"] == "run-already-terminal"
    assert stub.requests[0].headers["authorization"] == "Bearer sk-test"


def test_conversations_hold_the_turns_and_lists_hide_replays(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        run_ids = tutorial_runs(ctx)
        password = run_ids["I forgot my password and can't sign in."]
        replay = recorded_replay(ctx, password)
        conversations = client.get("/v1/conversations").json()["data"]
        run = client.get(f"/v1/runs/{password}").json()
        messages = client.get(
            f"/v1/conversations/{run['agent']['conversationId']}/messages"
        ).json()["data"]
        default = [r["id"] for r in client.get("/v1/runs").json()["data"]]
        only = [r["id"] for r in client.get("/v1/runs", params={"replays": "only"}).json()["data"]]
        included = client.get("/v1/runs", params={"replays": "include"}).json()["data"]
        stream = client.get(f"/v1/runs/{password}/stream")
        assert run_store.get(ctx.db, replay)["replay_of"] == password
    assert len(conversations) == 3
    assert [m["role"] for m in messages] == ["user", "agent", "tool", "agent"]
    assert messages[0]["content"] == "I forgot my password and can't sign in."
    assert replay not in default and len(default) == 3
    assert only == [replay]
    assert len(included) == 4
    assert stream.headers["content-type"].startswith("text/event-stream")
    events = [line for line in stream.text.splitlines() if line.startswith("event: ")]
    assert events == ["event: run.started", "event: run.step-completed", "event: run.completed"]


def recorded_replay(ctx: Context, past_run: str) -> str:
    """A replay run of a past run, as an eval run records one."""
    return recorded_run(ctx, "I forgot my password and can't sign in.", replay_of=past_run)


def test_a_cancel_racing_a_turn_s_end_leaves_the_run_one_ending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel from another thread while a turn's end is being written waits for that
    write: the run ends once, and the cancel finds it ended. (When the turn read its run
    before its write's transaction, a cancel landing between them was written over:
    `completed` after `run.cancelled`.)"""
    racer: list[threading.Thread] = []

    def turn_number(ctx: Context, conversation_id: str, run_id: str) -> int:
        if not racer:  # the turn has read its run: a cancel now, from another thread
            racer.append(threading.Thread(target=record.finish_cancelled, args=(ctx, run_id)))
            racer[0].start()
            racer[0].join(0.5)  # it waits for the turn's write, or is done by now
        return conversations.turn_number(ctx, conversation_id, run_id)

    racing = SimpleNamespace(turn_number=turn_number, record_turn=conversations.record_turn)
    monkeypatch.setattr(record, "conversations", racing)
    with desk_served(tmp_path) as (client, _):
        run = turn(client, "Hello.").json()
        racer[0].join(5)
        journal = client.get(f"/v1/runs/{run['id']}/journal").json()["data"]
        now = client.get(f"/v1/runs/{run['id']}").json()
    ends = [e["kind"] for e in journal if e["kind"] in ("run.completed", "run.cancelled")]
    assert (run["status"], now["status"], ends) == ("completed", "completed", ["run.completed"])
    assert not racer[0].is_alive()
