"""Conversations as a deployed runtime serves them: opened on a pinned version, continued by
turns, closed (a turn after is refused), unregistered (gone from every read)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from desk_pack import AGENT, desk_served, turn
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.services.context import Context

Served = tuple[TestClient, Context]


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with desk_served(tmp_path_factory.mktemp("desk"), versions=("1.0.0", "1.1.0")) as served:
        yield served


def opened(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/v1/conversations", json={"agentId": AGENT, **body})
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_turns_keep_the_pinned_version_and_a_closed_conversation_refuses_the_next(
    desk: Served,
) -> None:
    client, ctx = desk
    conversation = opened(client, agentVersion="1.0.0", title="Refunds", participantId="p-1")
    assert (conversation["status"], conversation["turnCount"]) == ("open", 0)
    assert (conversation["title"], conversation["participantId"]) == ("Refunds", "p-1")
    assert conversation["openedBy"] == f"user:{ctx.identity.user_id}"
    runs = []
    for said in ("Hello", "Where is my order?", "Thanks"):
        answer = turn(client, said, conversationId=conversation["id"])
        assert answer.status_code == 201, answer.text
        runs.append(answer.json())
    assert [(r["agent"]["version"], r["agent"]["via"]) for r in runs] == [
        ("1.0.0", "conversation")
    ] * 3
    assert [r["output"]["response"]["content"] for r in runs] == [
        "Turn 1: you said Hello",
        "Turn 2: you said Where is my order?",
        "Turn 3: you said Thanks",
    ]
    assert [r["output"]["turnNumber"] for r in runs] == [1, 2, 3]
    messages = client.get(f"/v1/conversations/{conversation['id']}/messages").json()["data"]
    assert [(m["sequence"], m["role"]) for m in messages] == [
        (i, role) for i, role in enumerate(["user", "agent"] * 3)
    ]
    closed = client.post(f"/v1/conversations/{conversation['id']}/close")
    assert closed.status_code == 200
    assert (closed.json()["status"], closed.json()["turnCount"]) == ("closed", 3)
    again = client.post(f"/v1/conversations/{conversation['id']}/close").json()
    assert again["closedAt"] == closed.json()["closedAt"]
    before = every_row(ctx.settings.database_path)
    refused = turn(client, "One more thing", conversationId=conversation["id"])
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "conversation-closed"
    assert every_row(ctx.settings.database_path) == before
    fresh = turn(client, "Hello").json()
    assert (fresh["agent"]["version"], fresh["agent"]["via"]) == ("1.1.0", "latest")


def test_open_refuses_what_it_cannot_pin_and_writes_nothing(desk: Served) -> None:
    client, ctx = desk
    before = every_row(ctx.settings.database_path)
    unknown = client.post("/v1/conversations", json={"agentId": AGENT, "agentVersion": "9.0.0"})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (
        400,
        "reference-out-of-scope",
    )
    assert unknown.json()["error"]["details"]["issues"][0]["path"] == "/agentId"
    nowhere = client.post(
        "/v1/conversations",
        json={"agentId": AGENT, "agentVersion": "1.0.0",
              "projectId": "00000000-0000-4000-8000-000000000000"},
    )  # fmt: skip
    assert (nowhere.status_code, nowhere.json()["error"]["code"]) == (400, "bad-input")
    unpinned = client.post("/v1/conversations", json={"agentId": AGENT})
    assert (unpinned.status_code, unpinned.json()["error"]["code"]) == (400, "validation-failed")
    assert every_row(ctx.settings.database_path) == before


def test_an_unregistered_conversation_is_gone_from_reads_lists_and_turns(desk: Served) -> None:
    client, ctx = desk
    conversation = opened(client, agentVersion="1.0.0")
    assert conversation["title"] == "Untitled conversation"
    path = f"/v1/conversations/{conversation['id']}"
    gone = client.post(f"{path}/unregister")
    assert gone.status_code == 200 and "unregisteredAt" in gone.json()
    assert client.get(path).json()["error"]["code"] == "conversation-not-found"
    assert client.get(f"{path}/messages").status_code == 404
    listed = client.get("/v1/conversations", params={"limit": 100}).json()["data"]
    assert conversation["id"] not in [c["id"] for c in listed]
    before = every_row(ctx.settings.database_path)
    refused = turn(client, "Hello", conversationId=conversation["id"])
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        404,
        "conversation-not-found",
    )
    assert client.post(f"{path}/unregister").status_code == 404
    assert every_row(ctx.settings.database_path) == before


def test_lists_filter_as_the_client_offers(desk: Served) -> None:
    client, _ = desk
    closed = opened(client, agentVersion="1.0.0", title="To close")
    client.post(f"/v1/conversations/{closed['id']}/close")
    still = opened(client, agentVersion="1.1.0", title="Still open")
    ids = {
        status: [c["id"] for c in client.get(
            "/v1/conversations", params={"status": status, "limit": 100}).json()["data"]]
        for status in ("open", "closed")
    }  # fmt: skip
    assert closed["id"] in ids["closed"] and closed["id"] not in ids["open"]
    assert still["id"] in ids["open"] and still["id"] not in ids["closed"]
    mine = client.get("/v1/conversations", params={"openedBy": "me", "agentId": AGENT}).json()
    assert mine["openedBy"] == "me"
    assert still["id"] == mine["data"][0]["id"]
    other = client.get("/v1/conversations", params={"agentId": "acme-desk.nobody"}).json()
    assert other["data"] == []
