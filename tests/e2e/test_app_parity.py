"""An app written against `kindgi dev` behaves as it will deployed (issue 27), against the
real `kindgi dev` through the official client 0.1.10, sync and async (every answer read
with its models, no field they don't know), and through the real CLI 0.1.10.

The desk pack (`tests/desk_pack.py`): 1.0.0 answers, 2.0.0 says nothing (its guardrail
halts it); a refund needs a person's yes in a run no person started.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from desk_pack import AGENT, NOT_EMPTY, REFUND, write_desk_pack
from devserver import KINDGI, DevServer, clean_env, start
from kindgi.client import (
    AsyncKindgi,
    ConflictError,
    GuardrailViolationError,
    Kindgi,
    ServerError,
)
from kindgi.client import NotFoundError as ClientNotFound
from pydantic import BaseModel

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

BLOCKED = f"Turn blocked by guardrail '{NOT_EMPTY}': The answer is empty."


def no_extras(value: Any, where: str = "answer") -> None:
    """A client model holds no field its class doesn't name, at any depth."""
    if isinstance(value, BaseModel):
        assert not value.model_extra, f"{where}: fields the client doesn't know {value.model_extra}"
        for name in type(value).model_fields:
            no_extras(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            no_extras(item, f"{where}[{n}]")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    pack = write_desk_pack(tmp_path_factory.mktemp("parity") / "desk", ("1.0.0", "2.0.0"))
    running = start(pack)
    yield running
    running.stop()


def ours(server: DevServer, *args: str) -> Any:
    """Our CLI in the pack folder; its JSON."""
    done = subprocess.run([KINDGI, *args], cwd=server.pack, env=clean_env(),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def keys(server: DevServer) -> tuple[str, str]:
    """A service account's key (its runs are unattended) and a second reviewer's key."""
    client = Kindgi(base_url=server.url, token=server.token)
    owner = {"kind": "service-account", "id": str(uuid.uuid4())}
    robot = client.tokens.mint({"for": owner, "label": "nightly refunds"}).token
    reviewer = ours(server, "approvals", "reviewer-token", "--role=standard")["token"]
    return robot, reviewer


def test_a_conversation_opened_continued_and_closed_refuses_a_fourth_turn(
    server: DevServer,
) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    conversation = client.conversations.open(agent_id=AGENT, agent_version="1.0.0", title="Orders")
    no_extras(conversation)
    said = ["Hello", "Where is my order?", "Thanks"]
    for n, message in enumerate(said, 1):
        run = client.runs.start(
            agent=AGENT, input={"userMessage": message, "conversationId": str(conversation.id)}
        )
        no_extras(run)
        assert (run.agent.version, run.agent.via) == ("1.0.0", "conversation")  # type: ignore[union-attr]
        assert run.output["response"]["content"] == f"Turn {n}: you said {message}"
    closed = client.conversations.close(str(conversation.id))
    assert (closed.status, closed.turn_count) == ("closed", 3)
    with pytest.raises(ConflictError) as refused:
        client.runs.start(agent=AGENT, input={"userMessage": "And?",
                                              "conversationId": str(conversation.id)})  # fmt: skip
    assert refused.value.server_code == "conversation-closed"
    page = client.conversations.messages(str(conversation.id), limit=100)
    no_extras(page)
    assert [m.content for m in page.data if m.role == "user"] == said


def test_the_same_conversation_through_the_async_client(server: DevServer) -> None:
    async def flow() -> None:
        async with AsyncKindgi(base_url=server.url, token=server.token) as client:
            opened = await client.conversations.open(agent_id=AGENT, agent_version="1.0.0")
            for message in ("Hi", "Bye", "Really bye"):
                await client.runs.start(agent=AGENT, input={
                    "userMessage": message, "conversationId": str(opened.id)})  # fmt: skip
            assert (await client.conversations.get(str(opened.id))).turn_count == 3
            await client.conversations.close(str(opened.id))
            with pytest.raises(ConflictError):
                await client.runs.start(agent=AGENT, input={
                    "userMessage": "Again", "conversationId": str(opened.id)})  # fmt: skip
            gone = await client.conversations.unregister(str(opened.id))
            assert gone.unregistered_at is not None
            with pytest.raises(ClientNotFound):
                await client.conversations.get(str(opened.id))

    asyncio.run(flow())


def refund(server: DevServer, robot: str, order: str) -> Any:
    """A refund turn the service account started: it pauses at the refund."""
    client = Kindgi(base_url=server.url, token=robot)
    run = client.runs.start(agent=AGENT, agent_version="1.0.0",
                            input={"userMessage": f"Refund order {order}."})  # fmt: skip
    assert run.status == "suspended"
    return run


def test_a_paused_run_approved_by_a_second_token_completes_and_another_is_rejected(
    server: DevServer,
) -> None:
    robot, reviewer = keys(server)
    client = Kindgi(base_url=server.url, token=server.token)
    second = Kindgi(base_url=server.url, token=reviewer)
    approved, rejected = refund(server, robot, "31"), refund(server, robot, "32")
    waiting = client.runs.get(str(approved.id))
    no_extras(waiting)
    [held] = waiting.waiting_for.approvals  # type: ignore[union-attr]
    assert (held.subject_kind, held.tool.id) == ("tool-call:pending", REFUND)  # type: ignore[union-attr]
    approval = second.approvals.get(str(held.approval_id))
    no_extras(approval)
    assert approval.subject_ref["arguments"] == {"orderId": "31"}
    done = second.approvals.complete(str(held.approval_id), decision="approve")
    no_extras(done)
    assert (done.waitpoint_resolved, done.run_status, done.resume.kind) == (True, "completed", "ok")  # type: ignore[union-attr]
    assert client.runs.get(str(approved.id)).output["response"]["content"] == (
        "Refunded order 31: rf-31."
    )
    other = second.approvals.list(run_id=str(rejected.id))
    no_extras(other)
    no = second.approvals.complete(str(other.data[0].id), decision="reject", rationale="Too late")
    assert no.approval.status == "rejected"
    assert client.runs.get(str(rejected.id)).output["response"]["content"] == (
        "I could not refund order 32: a reviewer said no (Too late)."
    )
    with pytest.raises(ServerError) as resumed:
        client.runs.resume(str(rejected.id), waitpoint_id="wt-any")
    assert (resumed.value.status, resumed.value.server_code) == (422, "run-resume-not-supported")


def test_an_approval_through_the_async_client(server: DevServer) -> None:
    robot, reviewer = keys(server)

    async def flow() -> None:
        async with (
            AsyncKindgi(base_url=server.url, token=robot) as as_robot,
            AsyncKindgi(base_url=server.url, token=reviewer) as as_reviewer,
        ):
            run = await as_robot.runs.start(agent=AGENT, agent_version="1.0.0",
                                            input={"userMessage": "Refund order 33."})  # fmt: skip
            assert run.status == "suspended"
            page = await as_reviewer.approvals.list(run_id=str(run.id), status="pending")
            done = await as_reviewer.approvals.complete(str(page.data[0].id), decision="approve")
            assert done.run_status == "completed"

    asyncio.run(flow())


def test_a_halt_fails_the_turn_and_an_eval_run_counts_the_trip(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    with pytest.raises(GuardrailViolationError) as halted:
        client.runs.start(agent=AGENT, agent_version="1.0.0", input={"userMessage": "Say nothing."})
    assert str(halted.value.message) == BLOCKED
    assert [v["guardrailId"] for v in halted.value.violations] == [NOT_EMPTY]
    guardrails = client.guardrails.list()
    no_extras(guardrails)
    assert [g.id for g in guardrails.data] == [NOT_EMPTY, "acme-desk.no-shouting"]
    run = client.runs.start(agent=AGENT, agent_version="1.0.0", input={"userMessage": "Hello"})
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {server.token}"},
                      timeout=30) as http:  # fmt: skip
        item = {"key": "answer", "pointer": "/appended/1/content", "verdict": "right"}
        assert http.post("/v1/corrections", json={"runId": str(run.id), "items": [item]}).is_success
        project = client.projects.get_default().id
        body = {"projectId": str(project), "agentRef": {"agentId": AGENT, "version": "2.0.0"}}
        started = http.post(f"/v1/agents/{AGENT}/test-set/runs", json=body)
    eval_run = client.eval_runs.get(started.json()["runId"])
    while eval_run.status in ("pending", "running"):
        time.sleep(0.1)
        eval_run = client.eval_runs.get(started.json()["runId"])
    result = eval_run.result
    assert isinstance(result, dict)
    assert result["summary"]["guardrailsTripped"][NOT_EMPTY] >= 1
    tripped = [c for c in result["perCase"] if c.get("guardrailsTripped") == [NOT_EMPTY]]
    assert tripped and all(c["changes"]["dropped"] == [{"key": "answer"}] for c in tripped)


def test_a_remembered_fact_is_read_back_then_erased(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    said = {"userMessage": "Remember I prefer email", "participantId": "p-31"}
    run = client.runs.start(agent=AGENT, agent_version="1.0.0", input=said)
    call = client.runs.journal(str(run.id)).data[1].payload
    fact = client.memory.get_fact(call["result"]["factId"])
    no_extras(fact)
    assert (fact.type, fact.content, fact.trust) == ("preference", {"text": "I prefer email"},
                                                     "unverified")  # fmt: skip
    listed = client.memory.list_facts(scope=json.dumps({"participantId": "p-31"}))
    assert [f.id for f in listed.data] == [fact.id]
    erased = client.memory.create_erasure({"subject": {"kind": "participant", "id": "p-31"}})
    no_extras(erased)
    assert (erased.status, erased.counts["facts"]) == ("completed", 1)
    with pytest.raises(ClientNotFound):
        client.memory.get_fact(fact.id)
    assert client.memory.list_erasures().data[0].id == erased.id


def real_kindgi() -> Path:
    """The real CLI 0.1.10, installed into a kept venv when it isn't there yet."""
    default = Path.home() / ".cache" / "kindgi-dev" / "kindgi-cli-0.1.10"
    venv = Path(os.environ.get("KINDGI_CLI_VENV", default))
    binary = venv / "bin" / "kindgi"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "kindgi-cli==0.1.10"],
                       check=True, timeout=600)  # fmt: skip
    return binary


def test_the_same_flows_through_the_real_cli(server: DevServer) -> None:
    binary = real_kindgi()

    def real(*args: str, token: str | None = None) -> Any:
        env = clean_env() if token is None else clean_env(
            KINDGI_API_URL=server.url, KINDGI_API_TOKEN=token)  # fmt: skip
        done = subprocess.run([str(binary), *args], cwd=server.pack, env=env,
                              capture_output=True, text=True, timeout=180)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    opened = real("conversations", "open", AGENT, "1.0.0", "--title=From the CLI")
    said = {"userMessage": "Hello", "conversationId": opened["id"]}
    turn = real("runs", "start", f"--agent={AGENT}", f"--input={json.dumps(said)}")
    assert turn["agent"]["via"] == "conversation"
    assert real("conversations", "close", opened["id"])["status"] == "closed"
    assert len(real("conversations", "messages", opened["id"])["data"]) == 2

    robot, reviewer = keys(server)
    paused = refund(server, robot, "34")
    listed = real("approvals", "list", "--status=pending", token=reviewer)
    mine = [a for a in listed["data"] if a.get("provenanceRef", {}).get("runId") == str(paused.id)]
    assert real("approvals", "get", mine[0]["id"], token=reviewer)["status"] == "pending"
    decided = real("approvals", "complete", mine[0]["id"], "--decision=approve", token=reviewer)
    assert (decided["runStatus"], decided["resume"]) == ("completed", {"kind": "ok"})

    fact = real("memory", "facts", "write", '--input={"type": "note", "content": {"text": "hi"}}')
    assert real("memory", "facts", "get", fact["id"])["content"] == {"text": "hi"}
    assert fact["id"] in [f["id"] for f in real("memory", "facts", "list")["data"]]
    erased = real("memory", "erasures", "create", f"--fact={fact['id']}")
    assert (erased["status"], erased["counts"]) == ("completed", {"facts": 1})
    assert real("memory", "erasures", "list")["data"][0]["id"] == erased["id"]
    assert real("guardrails", "list")["data"][0]["id"] == NOT_EMPTY


def test_a_restart_keeps_a_run_waiting_and_approving_it_afterwards_completes(
    tmp_path: Path,
) -> None:
    first = start(write_desk_pack(tmp_path / "desk"))
    try:
        robot, reviewer = keys(first)
        paused = refund(first, robot, "35")
    finally:
        assert first.stop() == 0
    again = start(first.pack)
    try:
        client = Kindgi(base_url=again.url, token=again.token)
        waiting = client.runs.get(str(paused.id))
        assert waiting.status == "suspended"
        [held] = waiting.waiting_for.approvals  # type: ignore[union-attr]
        second = Kindgi(base_url=again.url, token=reviewer)
        done = second.approvals.complete(str(held.approval_id), decision="approve")
        assert done.run_status == "completed"
        answer = client.runs.get(str(paused.id)).output["response"]["content"]
    finally:
        again.stop()
    assert answer == "Refunded order 35: rf-35."
