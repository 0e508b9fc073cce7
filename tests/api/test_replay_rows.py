"""What a replay of an eval run keeps (#29 points 1 and 2): a completed replay stores no
journal rows and its journal reads as a stored one would, erased with its conversation; its
run's output and context leave out what the row holds; a finished case's row leaves out
its fields at their defaults and reads back whole."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Any

from factories import AGENT, served
from starlette.testclient import TestClient
from tables import read_only
from test_eval_run_pages import _corrected_runs
from test_eval_runs import finish, models_file, start_version

from kindgi_dev.store import conversations as conversation_store
from kindgi_dev.store import runs as run_store
from kindgi_dev.store.jsoncol import dump
from kindgi_dev.store.replay_json import USAGE


def _replayed(client: TestClient, project: str) -> dict[str, Any]:
    started = start_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
    run = finish(client, started.json()["runId"])
    assert run["status"] == "completed", run
    return run


def _journal(client: TestClient, run_id: str, **query: Any) -> list[dict[str, Any]]:
    answer = client.get(f"/v1/runs/{run_id}/journal", params=query)
    assert answer.status_code == 200, answer.text
    data: list[dict[str, Any]] = answer.json()["data"]
    return data


def test_a_completed_replay_stores_no_journal_and_reads_as_if_it_did(tmp_path: Path) -> None:
    """Its journal is its start with its input, a step per tool call (the past run's, as
    recorded, under the replay's call id) and its end, at the run's own times; paged by
    `since` as a stored one is; and every payload None once its conversation is erased."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        _replayed(client, project)
        database = ctx.settings.database_path
        with closing(read_only(database)) as conn:
            replay, past, conversation = conn.execute(
                "SELECT id, replay_of, conversation_id FROM runs WHERE eval_run_id IS NOT NULL "
                "ORDER BY created_at LIMIT 1"
            ).fetchone()
            stored = conn.execute(
                "SELECT count(*) FROM run_journal WHERE run_id = ?", (replay,)
            ).fetchone()[0]
        run = client.get(f"/v1/runs/{replay}").json()
        journal = _journal(client, replay)
        later = _journal(client, replay, since=0)
        past_step = _journal(client, past)[1]
        erased = client.post("/v1/memory/erasures",
                             json={"conversationId": conversation})  # fmt: skip
        after_erasure = _journal(client, replay)
    call_id = run["output"]["appended"][1]["toolCalls"][0]["id"]
    assert stored == 0
    assert [(e["sequence"], e["kind"], e["timestamp"]) for e in journal] == [
        (0, "run.started", run["createdAt"]),
        (1, "step.completed", run["completedAt"]),
        (2, "run.completed", run["completedAt"]),
    ]
    asked = run["output"]["appended"][0]["content"]
    assert journal[0]["payload"] == {"input": {"userMessage": asked}}
    assert journal[1]["nodeId"] == past_step["nodeId"] == "tool:acme-ops.search-articles"
    assert journal[1]["payload"] == {**past_step["payload"], "callId": call_id,
                                     "source": "recorded"}  # fmt: skip
    assert journal[2]["payload"] == {}
    assert later == journal[1:]
    assert erased.status_code in (200, 202), erased.text
    assert [e["kind"] for e in after_erasure] == [e["kind"] for e in journal]
    assert all("payload" not in e for e in after_erasure)  # null, left out as stored ones


def test_a_finished_case_row_keeps_no_field_at_its_default(tmp_path: Path) -> None:
    """The row has no null field left in it, and the run's cases read back from it."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        run = _replayed(client, project)
        with closing(read_only(ctx.settings.database_path)) as conn:
            found = conn.execute(
                "SELECT case_id, result FROM eval_run_cases WHERE eval_run_id = ? "
                "ORDER BY case_index",
                (run["runId"],),
            ).fetchall()
            rows = [json.loads(text) for _, text in found]
    assert len(rows) == 3
    assert all(None not in row["result"].values() for row in rows)
    assert all("case_id" not in row["result"] for row in rows)  # the row's own column
    outcomes = [row["result"].get("outcomes") for row in rows]  # a letter each, when set
    assert outcomes == [None, None, "ffff"]
    assert not {"passed_all", "passed_any", "flaky", "passed_before"} & {
        key for row in rows for key in row["result"]}  # fmt: skip
    cases = run["result"]["perCase"]
    assert [c["caseId"] for c in cases] == [case_id for case_id, _ in found]
    assert [(c.get("passedAll"), c.get("flaky"), c.get("passedBefore")) for c in cases] == [
        (None, None, None), (None, None, None), (False, False, False)]  # fmt: skip
    assert [c["tools"][0]["source"] for c in cases] == ["recorded"] * 3


def _answers(client: TestClient, eval_run_id: str, replays: list[str]) -> list[bytes]:
    """What the API answers of an eval run and its replays: each run, its journal, the
    list of them with their outputs, and the eval run itself."""
    paths = [f"/v1/eval-runs/{eval_run_id}", f"/v1/runs?evalRunId={eval_run_id}&limit=100"]
    paths += [f"/v1/runs/{run_id}{part}" for run_id in replays for part in ("", "/journal")]
    for run_id in replays:
        conversation = client.get(f"/v1/runs/{run_id}").json()["agent"]["conversationId"]
        paths += [f"/v1/conversations/{conversation}/messages",
                  f"/v1/conversations/{conversation}/messages?limit=2&cursor="
                  + client.get(f"/v1/conversations/{conversation}/messages?limit=2")
                  .json()["nextCursor"]]  # fmt: skip
    found = []
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        found.append(answer.content)
    return found


def test_a_replay_s_run_keeps_no_part_its_row_holds_and_reads_the_same(tmp_path: Path) -> None:
    """A replay's row keeps neither its ids, turn number, user message, response, provider
    nor empty lists in its output, nor an empty context's names; every answer reads as
    when the row was whole, and m0046 compacts a whole row of a database from before."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        eval_run = _replayed(client, project)["runId"]
        with closing(read_only(ctx.settings.database_path)) as conn:
            rows = conn.execute(
                "SELECT id, output, context FROM runs WHERE eval_run_id = ? ORDER BY id",
                (eval_run,),
            ).fetchall()
        replays = [run_id for run_id, _, _ in rows]
        compact = _answers(client, eval_run, replays)
        whole = {run_id: run_store.get(ctx.db, run_id) for run_id in replays}
        with closing(read_only(ctx.settings.database_path)) as conn:
            wordless = conn.execute(
                "SELECT count(*) FROM conversation_messages m JOIN runs r "
                "ON r.conversation_id = m.conversation_id WHERE r.eval_run_id = ? "
                "AND m.content IS NULL AND m.tool_call IS NULL AND m.run_id IS NULL",
                (eval_run,),
            ).fetchone()[0]
        with ctx.db.transaction() as conn:  # the rows as kindgi dev stored them before m0046
            for run_id, run in whole.items():
                assert run is not None
                conn.execute("UPDATE runs SET output = ?, context = ? WHERE id = ?",
                             (dump(run.output), dump(run.context), run_id))  # fmt: skip
                said = conversation_store.messages(ctx.db, str(run.conversation_id))
                conn.executemany(
                    "UPDATE conversation_messages SET content = ?, tool_call = ?, run_id = ? "
                    "WHERE conversation_id = ? AND sequence = ?",
                    [(dump(m.content), dump(m.tool_call), run_id, run.conversation_id,
                      m.sequence) for m in said],
                )  # fmt: skip
            conn.execute("DELETE FROM schema_migrations WHERE version = 46")
        before_m0046 = _answers(client, eval_run, replays)
        assert ctx.db.migrate() == [46]
        after_m0046 = _answers(client, eval_run, replays)
        with closing(read_only(ctx.settings.database_path)) as conn:
            migrated = conn.execute(
                "SELECT id, output, context FROM runs WHERE eval_run_id = ? ORDER BY id",
                (eval_run,),
            ).fetchall()
            wordless_after = conn.execute(
                "SELECT count(*) FROM conversation_messages m JOIN runs r "
                "ON r.conversation_id = m.conversation_id WHERE r.eval_run_id = ? "
                "AND m.content IS NULL AND m.tool_call IS NULL AND m.run_id IS NULL",
                (eval_run,),
            ).fetchone()[0]
    assert len(rows) == 3
    for run_id, output, context in rows:
        kept = json.loads(output)
        assert list(kept) == ["usage", "output", "replies"]
        assert run_id not in output and '"role":"user"' not in output
        assert kept["replies"][0] == 1 and '"role"' not in output  # its stored call, words
        assert isinstance(kept["usage"], list)
        assert json.loads(context) == [[]]
        assert whole[run_id].output["runId"] == run_id  # type: ignore[index, union-attr]
        assert list(whole[run_id].context or {}) == ["history", "historyTruncated", "retrieved"]
    assert compact == before_m0046 == after_m0046
    assert migrated == rows
    assert (
        wordless == wordless_after == 3 * 4
    )  # every message of each replay (its agent message calling the
    # tool had no content to keep before either)


def test_an_erasure_of_a_replay_s_conversation_clears_and_counts_as_before(
    tmp_path: Path,
) -> None:
    """One replay's messages kept without their words, another's with them (as stored
    before): erasing each conversation counts the same messages, and both read the same
    after, their words gone."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 2)
        eval_run = _replayed(client, project)["runId"]
        runs = [run_store.get(ctx.db, r["id"]) for r in ctx.db.all(
            "SELECT id FROM runs WHERE eval_run_id = ? ORDER BY id", (eval_run,))]  # fmt: skip
        conversations = [str(run.conversation_id) for run in runs if run is not None]
        said = conversation_store.messages(ctx.db, conversations[1])
        with ctx.db.transaction() as conn:
            conn.executemany(
                "UPDATE conversation_messages SET content = ?, tool_call = ?, run_id = ? "
                "WHERE conversation_id = ? AND sequence = ?",
                [(dump(m.content), dump(m.tool_call), runs[1].id, conversations[1],  # type: ignore[union-attr]
                  m.sequence) for m in said],
            )  # fmt: skip
        counts, read = [], []
        for conversation in conversations:
            erased = client.post("/v1/memory/erasures", json={"conversationId": conversation})
            assert erased.status_code in (200, 202), erased.text
            counts.append(erased.json()["counts"])
            answer = client.get(f"/v1/conversations/{conversation}/messages").json()["data"]
            read.append([{k: v for k, v in m.items() if k != "createdAt"} for m in answer])
    assert len(said) == 4 and any(m.content for m in said)
    assert counts[0] == counts[1] and counts[0]["messages"] == 4 and counts[0]["runs"] == 1
    assert read[0] == read[1]
    assert [m["role"] for m in read[0]] == ["user", "agent", "tool", "agent"]
    assert all(m.get("content") is None for m in read[0])


def test_m0049_shortens_a_replay_s_row_kept_as_before_and_it_reads_the_same(
    tmp_path: Path,
) -> None:
    """A replay's row as m0046 and m0048 kept it (its input whole, its usage and replies by
    name, its update time; its conversation's last message time) is made as a replay's row
    is kept now, every answer the same."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        eval_run = _replayed(client, project)["runId"]
        query = "SELECT id, input, output, updated_at FROM runs WHERE eval_run_id = ? ORDER BY id"
        with closing(read_only(ctx.settings.database_path)) as conn:
            rows = conn.execute(query, (eval_run,)).fetchall()
        replays = [run_id for run_id, *_ in rows]
        now = _answers(client, eval_run, replays)
        with ctx.db.transaction() as conn:
            for run_id, _, output, _ in rows:
                run = run_store.get(ctx.db, run_id)
                assert run is not None
                kept = json.loads(output)
                usage = dict(zip(USAGE, kept["usage"], strict=True))
                replies = [{"role": "agent", "content": r} if isinstance(r, str) else
                           {"role": "agent", "content": None, "toolCalls": r}
                           for r in kept["replies"]]  # fmt: skip
                conn.execute(
                    "UPDATE runs SET input = ?, output = ?, updated_at = ? WHERE id = ?",
                    (dump(run.input), dump({**kept, "usage": usage, "replies": replies}),
                     run.updated_at, run_id),
                )  # fmt: skip
            conn.execute(
                "UPDATE conversations SET last_message_at = (SELECT completed_at FROM runs "
                "WHERE conversation_id = conversations.id) WHERE replay"
            )
            conn.execute("DELETE FROM schema_migrations WHERE version = 49")
        with closing(read_only(ctx.settings.database_path)) as conn:
            before = conn.execute(query, (eval_run,)).fetchall()
        before_m0049 = _answers(client, eval_run, replays)
        assert ctx.db.migrate() == [49]
        after_m0049 = _answers(client, eval_run, replays)
        with closing(read_only(ctx.settings.database_path)) as conn:
            migrated = conn.execute(query, (eval_run,)).fetchall()
            times = conn.execute("SELECT last_message_at FROM conversations WHERE replay")
            kept_times = [at for (at,) in times]
    whole = [(json.loads(given), updated) for _, given, _, updated in before]
    assert all(isinstance(given, dict) and updated != "" for given, updated in whole)
    kept = [(json.loads(given), updated) for _, given, _, updated in rows]
    assert all(isinstance(given, str) and updated == "" for given, updated in kept)
    assert now == before_m0049 == after_m0049
    assert migrated == rows
    assert kept_times == [None] * 3


def test_a_replay_s_conversation_keeps_no_last_message_time_its_run_s_end_gives(
    tmp_path: Path,
) -> None:
    """Its row keeps none; the conversation, alone and listed, reads its run's end."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        eval_run = _replayed(client, project)["runId"]
        with closing(read_only(ctx.settings.database_path)) as conn:
            kept = conn.execute(
                "SELECT r.id, c.id, c.last_message_at FROM runs r JOIN conversations c "
                "ON c.id = r.conversation_id WHERE r.eval_run_id = ? ORDER BY r.id",
                (eval_run,),
            ).fetchall()
        ended = {conversation: client.get(f"/v1/runs/{run}").json()["completedAt"]
                 for run, conversation, _ in kept}  # fmt: skip
        read = {c: client.get(f"/v1/conversations/{c}").json()["lastMessageAt"] for c in ended}
        listed = client.get("/v1/conversations", params={"replays": "only", "limit": 100})
    assert [at for _, _, at in kept] == [None] * 3
    assert read == ended
    assert {c["id"]: c["lastMessageAt"] for c in listed.json()["data"]} == ended
