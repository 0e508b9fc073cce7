"""How an eval run's replays reach the store: a page of cases to a transaction, and a
quick function model called on the eval loop's own thread. Mechanisms, not times (those
are in benchmarks/)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from starlette.testclient import TestClient
from test_eval_runs import correct_tutorial, finish, models_file, start_version

from kindgi_dev.runtime import eval_loop
from kindgi_dev.services.context import Context
from kindgi_dev.services.eval_runs import execute, page

EVAL_THREAD = "kindgi-eval-runs"
PAGE = 10


def _corrected_runs(client: TestClient, ctx: Context, count: int) -> None:
    """`count` more runs of the tutorial's questions, each corrected (the test set's cases)."""
    questions = list(QUESTIONS)
    runs = {}
    for n in range(count):
        question = questions[n % len(questions)]
        runs[question] = recorded_run(ctx, question)
        if len(runs) == len(questions) or n == count - 1:
            correct_tutorial(client, runs)
            runs = {}


@contextmanager
def _on_eval_thread(ctx: Context) -> Iterator[list[str]]:
    """The statements the store runs on the eval runs' thread inside the block."""
    statements: list[str] = []

    def keep(sql: str) -> None:
        if threading.current_thread().name == EVAL_THREAD:
            statements.append(sql)

    ctx.db.trace(keep)
    try:
        yield statements
    finally:
        ctx.db.trace(None)


def _try_on_test_set(client: TestClient, ctx: Context, project: str) -> list[str]:
    """Try 0.2.0 on the agent's test set; the statements its replays ran."""
    with _on_eval_thread(ctx) as statements:
        started = start_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
        run = finish(client, started.json()["runId"])
    assert run["status"] == "completed", run
    return statements


def _count(statements: list[str], prefix: str) -> int:
    return sum(1 for sql in statements if sql.lstrip().upper().startswith(prefix))


def test_an_eval_run_stores_a_page_of_cases_to_a_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 more cases cost 3 more transactions (pages of 10), not 30 or 90, and each case's
    replay run is still kept whole: its conversation, tool calls and journal."""
    monkeypatch.setattr(page, "PAGE_CASES", PAGE)
    monkeypatch.setattr(page, "PAGE_SECONDS", 3600.0)
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 30)
        smaller = _try_on_test_set(client, ctx, project)
        _corrected_runs(client, ctx, 30)
        larger = _try_on_test_set(client, ctx, project)
        replay = ctx.db.one("SELECT id, conversation_id FROM runs WHERE replay_of IS NOT NULL")
        read = client.get(f"/v1/runs/{replay['id']}").json()
        journal = client.get(f"/v1/runs/{replay['id']}/journal").json()["data"]
        messages = ctx.db.one(
            "SELECT count(*) AS n FROM conversation_messages WHERE conversation_id = ?",
            (replay["conversation_id"],),
        )
    assert _count(larger, "BEGIN") - _count(smaller, "BEGIN") == 30 // PAGE
    assert _count(larger, "INSERT INTO EVAL_RUN_CASES") == 60
    assert read["status"] == "completed" and read["output"]["turnNumber"] == 1
    assert read["output"]["conversationId"] == replay["conversation_id"]
    assert [e["kind"] for e in journal] == ["run.started", "step.completed", "run.completed"]
    assert messages["n"] == 4


def _counting(calls: list[str], real: Callable[..., Any]) -> Callable[..., Any]:
    async def to_thread(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread().name)
        return await real(function, *args, **kwargs)

    return to_thread


def test_a_quick_function_model_answers_replays_on_the_eval_loop_with_no_thread_hop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live run still calls the function model in a worker thread (the API's loop must
    not wait on it); an eval run's replays call it where they run."""
    hops: list[str] = []
    monkeypatch.setattr(asyncio, "to_thread", _counting(hops, asyncio.to_thread))
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 12)
        _try_on_test_set(client, ctx, project)
        replays = hops.count(EVAL_THREAD)
        live = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "hi"}})
    assert replays == 0
    assert live.status_code == 201, live.text
    assert len(hops) > 0 and EVAL_THREAD not in hops


SLOW_MODELS = """\
import time

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def slow(turn):
    time.sleep(0.06)
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    return Reply(text="Here.", output={"articles": []})
"""


def test_a_function_model_that_blocks_goes_back_to_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one call longer than `SLOW_CALL_S` the model's calls go to a thread, so a
    cancel or a poll never waits behind a sleeping model."""
    hops: list[str] = []
    monkeypatch.setattr(asyncio, "to_thread", _counting(hops, asyncio.to_thread))
    slow = tmp_path / "slow_models.py"
    slow.write_text(SLOW_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), slow) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        _try_on_test_set(client, ctx, project)
    calls = 3 * 2  # two model calls a case
    workers = 2  # the first call of each worker may run inline before one is found slow
    assert calls - workers <= hops.count(EVAL_THREAD) < calls


ONCE_SLOW_MODELS = SLOW_MODELS.replace(
    "def slow(turn):\n    time.sleep(0.06)\n",
    "def slow(turn):\n    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n"
    "    if CALLS == 1:\n        time.sleep(0.06)\n",
)


def test_a_function_model_slow_once_comes_back_to_the_eval_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that was slow once (on a busy machine it may only have waited for the GIL)
    sends the next call to a thread; that one is quick there, so the calls after it are
    inline again, not in a thread for the rest of the run."""
    hops: list[str] = []
    monkeypatch.setattr(asyncio, "to_thread", _counting(hops, asyncio.to_thread))
    once = tmp_path / "once_slow_models.py"
    once.write_text(ONCE_SLOW_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), once) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 6)
        _try_on_test_set(client, ctx, project)
    calls = 6 * 2  # two model calls a case
    workers = 2  # each worker may have sent one call to a thread after the slow one
    assert 1 <= hops.count(EVAL_THREAD) <= workers < calls


LOOP_TURN_MODELS = """\
import asyncio

from kindgi_dev.models import Reply, ToolCall, model

CALLS = []
TURNS = []


@model(default=True)
def quick(turn):
    CALLS.append(1)
    if len(CALLS) == 1:  # on the eval loop (a quick model runs inline): its next turn
        asyncio.get_running_loop().call_soon(lambda: TURNS.append(len(CALLS)))
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    return Reply(text="Here.", output={"articles": []})
"""


def test_a_quick_run_gives_way_every_few_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quick function model's replays never suspend; every `GIVE_WAY_REPLAYS` the eval
    thread still sleeps (lets the GIL go to a waiting request) and gives its loop a turn
    (a cancel, a page's timer): a callback queued at the first model call runs within
    that many replays of each worker, not after all 30 cases."""
    sleeps: list[float] = []
    monkeypatch.setattr(eval_loop, "time", SimpleNamespace(sleep=sleeps.append))
    workers = 2  # a function model's replays run a CPU count at a time
    monkeypatch.setattr(os, "cpu_count", lambda: workers)
    models = tmp_path / "loop_turn_models.py"
    models.write_text(LOOP_TURN_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), models) as (client, ctx):
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 30)
        _try_on_test_set(client, ctx, project)
    [module] = [m for name, m in sys.modules.items() if name.endswith("_loop_turn_models")]
    cases = 30
    assert sleeps == [0] * (cases // eval_loop.GIVE_WAY_REPLAYS)
    assert len(module.CALLS) == cases * 2  # two model calls a case
    [turned] = module.TURNS  # each worker queued before the callback takes its turn first
    assert turned <= eval_loop.GIVE_WAY_REPLAYS * workers * 2 < cases * 2


def test_a_run_lets_a_waiting_thread_take_the_gil_sooner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring a case and the summary's bootstrap are pure Python with no blocking call:
    while a run replays and sums up, the switch interval is `SWITCH_S` (a poll waits that
    long for the GIL, not 5 ms at each of its blocking calls), and afterwards it is what
    it was."""
    seen: list[float] = []
    summarize, finished_case = execute.summarize, execute.finished_case

    def noting(call: Any) -> Any:
        def noted(*args: Any, **kwargs: Any) -> Any:
            seen.append(sys.getswitchinterval())
            return call(*args, **kwargs)

        return noted

    monkeypatch.setattr(execute, "summarize", noting(summarize))
    monkeypatch.setattr(execute, "finished_case", noting(finished_case))
    before = sys.getswitchinterval()
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        _try_on_test_set(client, ctx, project)
    assert seen == [eval_loop.SWITCH_S] * 4  # three cases scored, then the summary
    assert sys.getswitchinterval() == before != eval_loop.SWITCH_S
