"""Memory as the 0.1.10 client describes it: facts an agent remembers in a live run (and
never in a dry run), facts an app writes and changes revision by revision, retrieval, and
erasures at `/v1/memory/erasures` and `/v1/erasures` erasing the same words."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from desk_pack import AGENT, desk_served, turn
from factories import AGENT as PICKER
from factories import served, tutorial_runs
from starlette.testclient import TestClient
from stubs.openai_stub import OpenAIStub
from tables import every_row
from test_eval_runs import PASSWORD, finish, models_file, try_version
from test_run_approvals import bearer, reviewer_key, service_key, waiting_approval

from kindgi_dev.domain.time import parse_time
from kindgi_dev.services.context import Context
from kindgi_dev.store import runs as run_store

Served = tuple[TestClient, Context]


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with desk_served(tmp_path_factory.mktemp("desk")) as served:
        yield served


def scope(ctx: Context, **narrower: str) -> dict[str, str]:
    return {"tenantId": ctx.tenant_id, **narrower}


def default_project(client: TestClient) -> str:
    return str(client.get("/v1/projects/default").json()["id"])


def tables_with(ctx: Context, word: str) -> list[str]:
    """The tables with a row holding `word`, but a frozen test-set version's cases: frozen
    versions keep the copies they took (docs/choices.md, Erasures)."""
    rows = every_row(ctx.settings.database_path)
    return [t for t, found in rows.items()
            if t != "test_set_version_cases" and word in repr(found)]  # fmt: skip


def written(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/v1/memory/facts", json=body)
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_kindgi_remember_writes_a_real_fact_in_a_live_run_and_none_in_a_dry_run(
    desk: Served,
) -> None:
    client, ctx = desk
    run = turn(client, "Remember I prefer email", participantId="p-9").json()
    assert run["output"]["response"]["content"] == "Noted."
    call = client.get(f"/v1/runs/{run['id']}/journal").json()["data"][1]["payload"]
    assert (call["toolId"], call["source"]) == ("kindgi_remember", "live")
    fact = client.get(f"/v1/memory/facts/{call['result']['factId']}").json()
    assert (fact["type"], fact["content"], fact["trust"], fact["version"]) == (
        "preference",
        {"text": "I prefer email"},
        "unverified",
        1,
    )
    assert fact["scope"] == scope(ctx, projectId=default_project(client), participantId="p-9")
    assert fact["attributedTo"] == {"kind": "agent", "id": "acme-desk.helper",
                                    "agentVersion": "1.0.0"}  # fmt: skip
    assert fact["generatedBy"] == {"runId": run["id"], "toolCallId": call["callId"]}
    kept = parse_time(fact["expiresAt"]) - parse_time(fact["createdAt"])
    assert kept == timedelta(days=30)
    listed = client.get("/v1/memory/facts", params={"scope": '{"participantId": "p-9"}'}).json()
    assert [f["id"] for f in listed["data"]] == [fact["id"]]
    before = every_row(ctx.settings.database_path)["fact_revisions"]
    body = {"agent": "acme-desk.helper", "input": {"userMessage": "Remember I like phone calls"},
            "options": {"dryRun": True}}  # fmt: skip
    dry = client.post("/v1/runs", json=body).json()
    refused = client.get(f"/v1/runs/{dry['id']}/journal").json()["data"][1]["payload"]
    assert (refused["source"], refused["error"]) == (
        "refused",
        "dry run: this call changes things, so it was not carried out",
    )
    assert every_row(ctx.settings.database_path)["fact_revisions"] == before


def test_a_fact_keeps_every_revision_and_refuses_a_stale_change(desk: Served) -> None:
    client, ctx = desk
    project = default_project(client)
    first = written(client, {"type": "address", "scope": scope(ctx, projectId=project),
                             "content": {"city": "Lyon"}})  # fmt: skip
    assert (first["trust"], first["attributedTo"]) == (
        "asserted",
        {"kind": "user", "id": ctx.identity.user_id},
    )
    path = f"/v1/memory/facts/{first['id']}"
    moved = client.post(f"{path}/supersede", json={"content": {"city": "Nantes"}}).json()
    assert (moved["id"], moved["version"], moved["content"]) == (first["id"], 2, {"city": "Nantes"})
    assert client.get(path, params={"version": 1}).json()["content"] == {"city": "Lyon"}
    assert client.get(path, params={"asOf": first["createdAt"]}).json()["version"] == 1
    checked = client.post(f"{path}/verify", json={"expectVersion": 2}).json()
    assert (checked["version"], checked["trust"], checked["content"]) == (
        3,
        "verified",
        {"city": "Nantes"},
    )
    assert checked["verifiedBy"] == f"user:{ctx.identity.user_id}"
    before = every_row(ctx.settings.database_path)
    stale = client.delete(path, params={"expectVersion": 2})
    assert (stale.status_code, stale.json()["error"]["code"]) == (409, "fact-changed")
    assert every_row(ctx.settings.database_path) == before
    deleted = client.delete(path, params={"expectVersion": 3}).json()
    assert deleted["invalidationReason"] == "deleted"
    gone = client.get(path)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "fact-not-found")
    history = client.get(f"{path}/revisions").json()["data"]
    assert [(f["version"], f.get("invalidationReason")) for f in history] == [
        (3, "deleted"),
        (2, "superseded"),
        (1, "superseded"),
    ]


def test_a_write_outside_the_tenant_or_without_a_project_is_refused(desk: Served) -> None:
    client, ctx = desk
    before = every_row(ctx.settings.database_path)
    cases = [
        ({"tenantId": "someone-else"}, "scope/tenantId"),
        (scope(ctx, participantId="p-1"), "scope/participantId"),
    ]
    for given, field in cases:
        answer = client.post("/v1/memory/facts", json={"type": "t", "scope": given, "content": 1})
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "validation-failed")
        assert answer.json()["error"]["details"]["field"] == field
    assert every_row(ctx.settings.database_path) == before


def test_retrieval_finds_by_words_and_has_no_search_by_meaning(desk: Served) -> None:
    client, ctx = desk
    tip = written(client, {"type": "tip", "scope": scope(ctx),
                           "content": {"text": "Parcels ship from the Lille depot"}})  # fmt: skip
    written(client, {"type": "tip", "scope": scope(ctx), "content": {"text": "Opening hours"}})
    intent = {"mode": "keyword", "query": "lille parcels", "type": "tip"}
    hits = client.post("/v1/memory/retrieve", json=intent)
    assert [(h["fact"]["id"], h["score"]) for h in hits.json()["results"]] == [(tip["id"], 1.0)]
    meaning = client.post("/v1/memory/retrieve", json={"mode": "semantic", "query": "x"})
    assert (meaning.status_code, meaning.json()["error"]["code"]) == (422, "semantic-unavailable")


def test_both_erasures_erase_the_same_words(desk: Served) -> None:
    client, _ = desk
    erased = {}
    for person, path, body in (
        ("p-21", "/v1/memory/erasures", {"subject": {"kind": "participant", "id": "p-21"}}),
        ("p-22", "/v1/erasures", {"participantId": "p-22"}),
    ):
        run = turn(client, "Remember I prefer letters", participantId=person).json()
        fact_id = client.get(f"/v1/runs/{run['id']}/journal").json()["data"][1]["payload"][
            "result"]["factId"]  # fmt: skip
        item = {"key": "answer", "pointer": "/appended/3/content", "verdict": "wrong",
                "reason": f"{person} said so"}  # fmt: skip
        correction = client.post("/v1/corrections", json={
            "runId": run["id"], "items": [item], "participantId": person}).json()  # fmt: skip
        answer = client.post(path, json=body)
        assert answer.status_code in (200, 202), answer.text
        erased[person] = answer.json()
        assert client.get(f"/v1/memory/facts/{fact_id}").status_code == 404
        assert client.get(f"/v1/corrections/{correction['id']}").json()["erased"] is True
        conversation = run["agent"]["conversationId"]
        messages = client.get(f"/v1/conversations/{conversation}/messages").json()["data"]
        assert [m["content"] for m in messages] == [None] * len(messages)
        assert "output" not in client.get(f"/v1/runs/{run['id']}").json()
    counts = erased["p-21"]["counts"]
    assert (erased["p-21"]["status"], erased["p-21"]["selectorKind"]) == (
        "completed",
        "participant",
    )
    assert counts == {"corrections": 1, "judgments": 1, "facts": 1, "conversations": 1,
                      "messages": 4, "runs": 1}  # fmt: skip
    assert "selector" not in erased["p-21"]
    assert (erased["p-22"]["corrections"], erased["p-22"]["judgments"]) == (1, 1)
    ledger = client.get("/v1/memory/erasures").json()["data"]
    assert [e["selectorKind"] for e in ledger[:2]] == ["participant", "participant"]
    assert ledger[1]["id"] == erased["p-21"]["id"]
    assert client.get(f"/v1/memory/erasures/{erased['p-21']['id']}").json()["counts"] == counts
    exported = client.get("/v1/memory/erasures/export").json()["data"]
    assert [e["id"] for e in exported][-2] == erased["p-21"]["id"]


def test_an_erasure_of_something_not_here_is_refused(desk: Served) -> None:
    client, ctx = desk
    before = every_row(ctx.settings.database_path)
    for body, status, code in (
        ({"factId": "nope"}, 404, "fact-not-found"),
        ({"conversationId": "00000000-0000-4000-8000-000000000000"}, 404,
         "conversation-not-found"),
        ({"factId": "a", "conversationId": "b"}, 400, "validation-failed"),
        ({"subject": {"kind": "user", "id": "u"}}, 400, "validation-failed"),
    ):  # fmt: skip
        answer = client.post("/v1/memory/erasures", json=body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert every_row(ctx.settings.database_path) == before


def test_an_erasure_clears_the_runs_replaying_the_erased_ones_and_what_was_copied_from_them(
    tmp_path: Path,
) -> None:
    """A person's words live on in what was made from their runs: an eval run's replays
    (their output, their conversations), the answers kept for reuse, the value a verdict
    judged. After the erasure no read of those has them."""
    with desk_served(tmp_path, ("1.0.0", "1.1.0")) as (client, ctx):
        project = default_project(client)
        run = turn(client, "Hello SECRETMSG", version="1.0.0", participantId="p-31").json()
        item = {"key": "answer", "pointer": "/appended/1/content", "verdict": "wrong"}
        for by in ({"participantId": "p-31"}, {}):  # the person's own, and a reviewer's
            made = client.post("/v1/corrections", json={"runId": run["id"], "items": [item], **by})
            assert made.status_code == 201, made.text
        started = client.post(f"/v1/agents/{AGENT}/test-set/runs", json={
            "projectId": project, "agentRef": {"agentId": AGENT, "version": "1.1.0"},
            "reuse": True}).json()  # fmt: skip
        eval_run = finish(client, started["runId"])
        replays = client.get("/v1/runs", params={"evalRunId": eval_run["runId"]}).json()["data"]
        assert replays and all(r["replayOf"] == run["id"] for r in replays)
        reads = [f"/v1/runs/{r['id']}" for r in replays]
        reads += [f"/v1/runs/{r['id']}/journal" for r in replays]
        talks = [client.get(f"/v1/runs/{r['id']}").json()["agent"]["conversationId"]
                 for r in replays]  # fmt: skip
        reads += [f"/v1/conversations/{c}" for c in talks]
        reads += [f"/v1/conversations/{c}/messages" for c in talks]
        reads += ["/v1/runs?include=output&replays=only", "/v1/conversations?replays=only"]
        judgments = client.get("/v1/judgments", params={"runId": run["id"]}).json()["data"]
        assert len(judgments) == 2
        reads += [f"/v1/judgments/{j['id']}" for j in judgments]
        assert any("SECRETMSG" in client.get(path).text for path in reads)
        kept = [r["answer"] for r in ctx.db.all("SELECT answer FROM kept_answers")]
        assert len(kept) == len(replays) and all("SECRETMSG" in answer for answer in kept)

        erased = client.post("/v1/memory/erasures",
                             json={"subject": {"kind": "participant", "id": "p-31"}})  # fmt: skip
        assert erased.status_code == 202, erased.text

        assert [p for p in reads if "SECRETMSG" in client.get(p).text] == []
        assert ctx.db.all("SELECT answer FROM kept_answers") == []  # none may be reused now


@pytest.mark.parametrize("by", ["participant", "conversation"])
def test_no_case_is_left_on_a_run_whose_words_were_erased(tmp_path: Path, by: str) -> None:
    """The person's own correction, a reviewer's and a hand case were cases of the run; once
    its words are erased none is (a replay of it would ask nothing), the hand case retired
    saying why, and the set's counts agree."""
    with desk_served(tmp_path) as (client, _):
        project = default_project(client)
        run = turn(client, "Hello SECRETMSG", participantId="p-41").json()
        item = {"key": "answer", "pointer": "/appended/1/content", "verdict": "wrong",
                "reason": "SECRETREASON"}  # fmt: skip
        for person in ({"participantId": "p-41"}, {}):
            made = client.post("/v1/corrections",
                               json={"runId": run["id"], "items": [item], **person})  # fmt: skip
            assert made.status_code == 201, made.text
        hand = client.post(f"/v1/agents/{AGENT}/test-set/cases", params={"projectId": project},
                           json={"runId": run["id"], "items": [item]})  # fmt: skip
        assert hand.status_code == 201, hand.text
        cases = f"/v1/agents/{AGENT}/test-set/cases"
        assert len(client.get(cases, params={"projectId": project}).json()["data"]) == 3

        body = ({"subject": {"kind": "participant", "id": "p-41"}} if by == "participant"
                else {"conversationId": run["agent"]["conversationId"]})  # fmt: skip
        assert client.post("/v1/memory/erasures", json=body).status_code == 202

        assert client.get(cases, params={"projectId": project}).json()["data"] == []
        listed = client.get(cases, params={"projectId": project, "include": "retired"}).json()
        assert [(c["id"], c["retired"]["reason"]) for c in listed["data"]] == [
            (hand.json()["id"], "an erasure cleared the run it was made of")
        ]
        counted = client.get(f"/v1/agents/{AGENT}/test-set", params={"projectId": project})
        assert "SECRETREASON" not in client.get(
            "/v1/corrections", params={"runId": run["id"]}).text  # fmt: skip
        assert counted.json()["cases"] == {"active": 0, "retired": 1}


@pytest.mark.parametrize("served", [{"participantId": "p-51"}, {}])
def test_an_erasure_leaves_no_words_in_the_eval_runs_cases(
    tmp_path: Path, served: dict[str, str]
) -> None:
    """An eval run's cases copied the person's words: their correction's `shouldSay` in an
    answer check's reason, the replay's tool arguments (of their run, or another's they
    corrected). After the erasure a case keeps its checks and differences without those
    words, and a rescore of it, before or after, has none either."""
    with desk_served(tmp_path, ("1.0.0", "1.1.0")) as (client, _):
        project = default_project(client)
        run = turn(client, "Refund order SECRETORDER.", version="1.0.0", **served)
        item = {"key": "answer", "pointer": "/appended/3/content", "verdict": "wrong"}
        made = client.post("/v1/corrections", json={
            "runId": run.json()["id"], "items": [item], "participantId": "p-51",
            "answer": {"verdict": "wrong", "shouldSay": "SECRETSHOULD"},
            "decisions": {"verdict": "wrong", "shouldCall": [
                {"toolId": "acme-desk.issue-refund", "args": {"orderId": "9"}}]}})  # fmt: skip
        assert made.status_code == 201, made.text
        started = client.post(
            f"/v1/agents/{AGENT}/test-set/runs",
            json={"projectId": project, "agentRef": {"agentId": AGENT, "version": "1.1.0"}},
        ).json()
        tried = finish(client, started["runId"])["runId"]
        rescored = client.post(f"/v1/eval-runs/{tried}/rescore", json={})
        assert rescored.status_code in (200, 201, 202), rescored.text
        reads = [f"/v1/eval-runs/{tried}", f"/v1/eval-runs/{rescored.json()['runId']}"]
        assert all("SECRETSHOULD" in client.get(p).text for p in reads)
        assert all("SECRETORDER" in client.get(p).text for p in reads)

        erased = client.post("/v1/memory/erasures",
                             json={"subject": {"kind": "participant", "id": "p-51"}})  # fmt: skip
        assert erased.status_code == 202, erased.text

        again = client.post(f"/v1/eval-runs/{tried}/rescore", json={}).json()["runId"]
        for path in [*reads, f"/v1/eval-runs/{again}"]:
            text = client.get(path).text
            assert "SECRETSHOULD" not in text and "SECRETORDER" not in text, path
        [case] = client.get(reads[0]).json()["result"]["perCase"]
        assert [(d["part"], [(x["kind"], x.get("actual"), x.get("reason")) for x in
                             d["differences"]]) for d in case["correctionDifferences"]] == [
            ("decisions", [("field-value", None, None)]),
            ("answer", [("answer", None, "an erasure cleared the words of this reason")]),
        ]  # fmt: skip
        assert [t["arguments"] for t in case["tools"]] == [None]


@pytest.mark.parametrize("by", ["participant", "conversation"])
def test_an_erased_conversation_takes_no_more_turns(desk: Served, by: str) -> None:
    """Its earlier turns' words are gone and it no longer says whom it was with, so a turn
    there would keep new words no erasure of the person finds: the erasure closes it, and
    a turn is refused as in any closed conversation, writing nothing."""
    client, ctx = desk
    person = f"p-61-{by}"
    conversation = turn(client, "Hello", participantId=person).json()["agent"]["conversationId"]
    body = ({"subject": {"kind": "participant", "id": person}} if by == "participant"
            else {"conversationId": conversation})  # fmt: skip
    assert client.post("/v1/memory/erasures", json=body).status_code == 202
    assert client.get(f"/v1/conversations/{conversation}").json()["status"] == "closed"
    before = every_row(ctx.settings.database_path)
    again = turn(client, "One more thing", participantId=person, conversationId=conversation)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conversation-closed")
    assert every_row(ctx.settings.database_path) == before


@pytest.mark.parametrize("by", ["participant", "conversation"])
def test_an_erasure_ends_a_run_paused_in_the_conversation_and_its_approval(
    desk: Served, by: str
) -> None:
    """A run paused at a held call keeps the turn (and the call's arguments) to go on with:
    approved after the erasure, it would write the person's words back into the erased run
    and conversation. The erasure ends it (`cancelled`) and withdraws its approval, clearing
    the words both kept, so a later decision is refused as for any decided one, writing
    nothing."""
    client, ctx = desk
    person = f"p-72-{by}"
    said = {"userMessage": "Refund order SECRET72.", "participantId": person}
    body = {"agent": AGENT, "agentVersion": "1.0.0", "input": said}
    run = client.post("/v1/runs", json=body, headers=bearer(service_key(client))).json()
    assert run["status"] == "suspended"
    conversation = run["agent"]["conversationId"]
    approval = waiting_approval(client, run["id"])["approvalId"]
    token, _ = reviewer_key(client)
    erase = ({"subject": {"kind": "participant", "id": person}} if by == "participant"
             else {"conversationId": conversation})  # fmt: skip
    assert client.post("/v1/memory/erasures", json=erase).status_code == 202
    ended = client.get(f"/v1/runs/{run['id']}").json()
    assert (ended["status"], "waitingFor" in ended) == ("cancelled", False)
    withdrawn = client.get(f"/v1/approvals/{approval}", headers=bearer(token)).json()
    assert (withdrawn["status"], withdrawn["withdrawnBecause"]) == ("withdrawn", "run-ended")
    assert withdrawn["subjectRef"]["arguments"] is None
    before = every_row(ctx.settings.database_path)
    assert "SECRET72" not in repr(before)
    late = client.post(f"/v1/approvals/{approval}/complete", json={"decision": "approve"},
                       headers=bearer(token))  # fmt: skip
    assert (late.status_code, late.json()["error"]["code"]) == (409, "approval-already-decided")
    resumed = client.post(f"/v1/runs/{run['id']}/resume", json={})
    assert resumed.status_code == 422, resumed.text
    assert every_row(ctx.settings.database_path) == before
    assert client.get(f"/v1/conversations/{conversation}/messages").json()["data"] == []


def test_an_erasure_ends_a_replay_of_the_erased_run_paused_at_a_held_call(desk: Served) -> None:
    """A replay of an erased run (an eval run's) that paused at a held call has its kept turn
    cleared with the run it replays: it is ended as the erased run itself would be, not left
    waiting for a decision that would go on from a turn with nothing in it."""
    client, ctx = desk
    erased = turn(client, "Hello SECRET73", participantId="p-73").json()
    said = {"userMessage": "Refund order 73.", "participantId": "p-74"}
    body = {"agent": AGENT, "agentVersion": "1.0.0", "input": said}
    paused = client.post("/v1/runs", json=body, headers=bearer(service_key(client))).json()
    assert paused["status"] == "suspended"
    approval = waiting_approval(client, paused["id"])["approvalId"]
    with ctx.db.transaction() as conn:  # as a replay of the erased run pauses
        conn.execute("UPDATE runs SET replay_of = ? WHERE id = ?", (erased["id"], paused["id"]))
    assert client.post("/v1/erasures", json={"participantId": "p-73"}).status_code == 200
    ended = client.get(f"/v1/runs/{paused['id']}").json()
    assert (ended["status"], "waitingFor" in ended) == ("cancelled", False)
    token, _ = reviewer_key(client)
    late = client.post(f"/v1/approvals/{approval}/complete", json={"decision": "approve"},
                       headers=bearer(token))  # fmt: skip
    assert (late.status_code, late.json()["error"]["code"]) == (409, "approval-already-decided")


SLOW_REFUND = """
    if args.order_id.startswith("SLOW"):
        time.sleep(1.0)
"""


def slow_refunds(root: Path) -> None:
    """The desk's refund tool takes a second for an order whose id starts with SLOW."""
    tools = root / "tools" / "orders.py"
    text = tools.read_text().replace(
        '"""Refunds an order in full."""\n', '"""Refunds an order in full."""\n' + SLOW_REFUND[1:]
    )
    tools.write_text("import time\n" + text)


def test_an_erasure_ends_a_run_still_going_and_its_turn_writes_nothing(tmp_path: Path) -> None:
    """A run of the person's still going when they are erased (its tool call in flight in
    the pack service) is cancelled by the erasure; when its turn ends, the turn finds the
    run ended and keeps nothing, so no row holds the words the erasure cleared."""
    with desk_served(tmp_path, edit=slow_refunds) as (client, ctx):
        said = {"userMessage": "Refund order SLOW91.", "participantId": "p-91"}
        body = {"agent": AGENT, "input": said, "options": {"wait": False}}
        started = client.post("/v1/runs", json=body)
        assert (started.status_code, started.json()["status"]) == (202, "running")
        assert client.post("/v1/erasures", json={"participantId": "p-91"}).status_code == 200
        run_id = started.json()["id"]
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
        for _ in range(60):  # the tool call ends a second after it started
            if not ctx.run_tasks:
                break
            time.sleep(0.05)
        assert ctx.run_tasks == {}
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
        kept = run_store.get(ctx.db, run_id)
        assert kept is not None and kept.conversation_id is not None
        assert kept.failure_message == "An erasure of its conversation ended the run while it ran."
        messages = client.get(f"/v1/conversations/{kept.conversation_id}/messages").json()
        assert messages["data"] == []
        assert tables_with(ctx, "SLOW91") == []


def test_an_erasure_leaves_no_words_in_an_eval_run_case_s_error(tmp_path: Path) -> None:
    """A replay that failed keeps why in its case's `error`, and a failure may quote the turn
    (a provider's error the prompt, a tool's its arguments). After the erasure the case
    still errored, saying an erasure cleared its words, and no row keeps them."""
    with desk_served(tmp_path, ("1.0.0", "3.0.0")) as (client, ctx):
        project = default_project(client)
        run = turn(client, "Refund order SECRET81.", version="1.0.0", participantId="p-81")
        item = {"key": "answer", "pointer": "/appended/3/content", "verdict": "wrong"}
        made = client.post("/v1/corrections", json={"runId": run.json()["id"], "items": [item],
                                                    "participantId": "p-81"})  # fmt: skip
        assert made.status_code == 201, made.text
        started = client.post(
            f"/v1/agents/{AGENT}/test-set/runs",
            json={"projectId": project, "agentRef": {"agentId": AGENT, "version": "3.0.0"}},
        ).json()
        tried = finish(client, started["runId"])
        [case] = tried["result"]["perCase"]
        assert "SECRET81" in case["error"] and tried["result"]["summary"]["errors"] == 1

        erased = client.post("/v1/memory/erasures",
                             json={"subject": {"kind": "participant", "id": "p-81"}})  # fmt: skip
        assert erased.status_code == 202, erased.text

        read = client.get(f"/v1/eval-runs/{tried['runId']}").json()
        [case] = read["result"]["perCase"]
        assert case["error"] == "an erasure cleared the words of this error"
        assert read["result"]["summary"]["errors"] == 1
        assert tables_with(ctx, "SECRET81") == []


@pytest.mark.parametrize("by", ["participant", "conversation"])
def test_an_erasure_leaves_no_words_in_a_dry_run_s_preview(tmp_path: Path, by: str) -> None:
    """A dry run keeps the input each case would give, copied from its past run: after the
    erasure of that run the preview names the case with its input `null`, and no row keeps
    the words; another person's case keeps its input."""
    with desk_served(tmp_path) as (client, ctx):
        project = default_project(client)
        item = {"key": "answer", "pointer": "/appended/1/content", "verdict": "wrong"}
        runs = {}
        for person in ("p-91", "p-92"):
            runs[person] = turn(client, f"Hello SECRET-{person}", participantId=person).json()
            made = client.post("/v1/corrections", json={"runId": runs[person]["id"],
                                                        "items": [item]})  # fmt: skip
            assert made.status_code == 201, made.text
        started = client.post(f"/v1/agents/{AGENT}/test-set/runs", json={
            "projectId": project, "agentRef": {"agentId": AGENT, "version": "1.0.0"},
            "dryRun": True}).json()  # fmt: skip
        dry = f"/v1/eval-runs/{finish(client, started['runId'])['runId']}"
        assert "SECRET-p-91" in client.get(dry).text

        body = ({"subject": {"kind": "participant", "id": "p-91"}} if by == "participant"
                else {"conversationId": runs["p-91"]["agent"]["conversationId"]})  # fmt: skip
        assert client.post("/v1/memory/erasures", json=body).status_code == 202

        preview = client.get(dry).json()["result"]["preview"]
        assert sorted((c["input"] or "") for c in preview) == ["", "Hello SECRET-p-92"]
        assert tables_with(ctx, "SECRET-p-91") == []


def test_an_erasure_forgets_the_judging_verdicts_kept_on_the_person_s_words(
    tmp_path: Path,
) -> None:
    """A run asked to reuse keeps the judging model's verdicts, and a verdict's reason may
    quote the correction's `shouldSay` (or either answer). The erasure forgets the verdicts
    asked on the person's corrections (and on their runs), so no row keeps their words."""
    judge = OpenAIStub().serve()
    for _ in range(2):
        judge.queue_text('{"answer": "", "output": {"pass": false, '
                         '"reason": "It does not say SECRET93."}}')  # fmt: skip
    env = {"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": judge.base_url}
    providers = '[tool.kindgi-dev.providers]\ndefault = "function"\n'
    path = f"/v1/agents/{PICKER}/test-set/runs"
    try:
        with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search"), env,
                    providers) as (client, ctx):  # fmt: skip
            project = default_project(client)
            said = {"runId": tutorial_runs(ctx)[PASSWORD], "participantId": "p-93",
                    "answer": {"verdict": "wrong", "shouldSay": "SECRET93"}}  # fmt: skip
            assert client.post("/v1/corrections", json=said).status_code == 201
            try_version(client, path, project, reuse=True)
            assert "kept_verdicts" in tables_with(ctx, "SECRET93")

            erase = {"subject": {"kind": "participant", "id": "p-93"}}
            erased = client.post("/v1/memory/erasures", json=erase)
            assert erased.status_code == 202, erased.text

            assert tables_with(ctx, "SECRET93") == []
    finally:
        judge.stop()
