"""Costs that must not grow with the database: query plans of the hot paths, and polls.

These check the mechanisms (an index is used, a poll reads no case rows, kept counts stay
right); how fast
they are is measured in benchmarks/, not here.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, served, tutorial_runs
from starlette.testclient import TestClient
from test_eval_runs import build_suite, correct_tutorial, finish, models_file, start_version

from kindgi_dev.app import console_link
from kindgi_dev.console import eval_runs as console_eval_runs
from kindgi_dev.domain.metrics import CaseScore
from kindgi_dev.domain.results import CaseResult, FinishedCase
from kindgi_dev.domain.time import now_iso
from kindgi_dev.runtime import memory
from kindgi_dev.services import catalog, models, replay_cases
from kindgi_dev.services.context import Context
from kindgi_dev.store import eval_runs as eval_store

GROWING = (
    "runs", "run_journal", "run_tool_calls", "conversations", "conversation_messages",
    "corrections", "verdicts", "judged_run_copies", "hand_cases", "case_retirements",
    "eval_runs", "eval_run_cases", "eval_suite_cases", "test_set_version_cases",
    "idempotency_keys",
)  # fmt: skip
"""Tables that grow with use; a hot query must search them, never scan them."""
LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b")


@contextmanager
def traced(ctx: Context) -> Iterator[list[str]]:
    """Every SQL statement the store runs inside the block, with its values filled in."""
    statements: list[str] = []
    ctx.db.trace(statements.append)
    try:
        yield statements
    finally:
        ctx.db.trace(None)


def plans(ctx: Context, statements: list[str]) -> dict[str, list[str]]:
    """Each shape of statement the store ran (literals as `?`), with its plan's steps."""
    found: dict[str, list[str]] = {}
    for sql in statements:
        shape = LITERAL.sub("?", sql)
        if shape in found or not sql.lstrip().upper().startswith(
            ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
        ):
            continue
        found[shape] = [step["detail"] for step in ctx.db.all(f"EXPLAIN QUERY PLAN {sql}")]
    return found


def scans(ctx: Context, statements: list[str]) -> dict[str, list[str]]:
    """The statements whose plan scans a growing table (one of each shape), with those steps.
    A page of a list (`LIMIT`) may walk an index in its order: it stops after the page."""
    found: dict[str, list[str]] = {}
    for shape, steps in plans(ctx, statements).items():
        paged = re.search(r"\bLIMIT\b", shape) is not None
        bad = [
            s
            for s in steps
            if re.match(rf"SCAN ({'|'.join(GROWING)})\b", s)
            and not (paged and " USING INDEX " in s)
        ]
        if bad:
            found[shape] = bad
    return found


def unused_indexes(ctx: Context, statements: list[str], tables: tuple[str, ...]) -> set[str]:
    """The indexes of `tables` that no statement's plan used, but for those that only keep
    a UNIQUE constraint."""
    used = {
        match.group(1)
        for steps in plans(ctx, statements).values()
        for step in steps
        if (match := re.search(r"USING (?:COVERING )?INDEX (\w+)", step))
    }
    marks = ", ".join("?" * len(tables))
    rows = ctx.db.all(
        f"SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ({marks}) "
        "AND name NOT LIKE 'sqlite_autoindex_%'",
        tables,
    )
    return {row["name"] for row in rows} - used


def test_hot_paths_search_growing_tables_and_never_scan_them(tmp_path: Path) -> None:
    """Live runs, corrections, test-set reads, lists paged through and an eval run with its
    polls: every query's plan searches an index (a conversation's turns used to scan every
    run), and every index of corrections and verdicts serves one of them (unused ones took
    a third of the database)."""
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        with traced(ctx) as statements:
            runs = tutorial_runs(ctx)
            live = client.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": "hi"}})
            assert live.status_code == 201, live.text
            follow_up = {"agent": AGENT, "input": {
                "userMessage": "and then?", "conversationId": live.json()["agent"]["conversationId"]
            }}  # fmt: skip
            assert client.post("/v1/runs", json=follow_up).status_code == 201
            correct_tutorial(client, runs)
            correct_tutorial(client, runs)
            project = client.get("/v1/projects/default").json()["id"]
            assert client.get(f"/v1/agents/{AGENT}/test-set").json()["cases"]["active"] == 3
            assert len(client.get(f"/v1/agents/{AGENT}/test-set/cases").json()["data"]) == 3
            for participant in ("p-1", "p-1", "p-2"):
                body = {"runId": next(iter(runs.values())), "participantId": participant,
                        "items": _items(["kb-101"])}  # fmt: skip
                assert client.post("/v1/corrections", json=body).status_code == 201
            build_suite(client, "acme.one", project)
            started = start_version(client, "/v1/eval-suites/acme.one/runs", project)
            assert finish(client, started.json()["runId"])["status"] == "completed"
            on_set = start_version(client, f"/v1/agents/{AGENT}/test-set/runs", project)
            assert finish(client, on_set.json()["runId"])["status"] == "completed"
            listed = _read_lists(client, project)
        assert len(statements) > 100
        assert listed == {"corrections": 5, "judgments": 11, "agent's": 5, "cases": 5}
        assert scans(ctx, statements) == {}
        assert unused_indexes(ctx, statements, ("corrections", "verdicts")) == set()


def _read_lists(client: TestClient, project: str) -> dict[str, int]:
    """Page through the lists over corrections and verdicts, two at a time, and read each
    judgment; how many each list held."""
    lists = {
        "corrections": ("/v1/corrections", {}),
        "judgments": ("/v1/judgments", {}),
        "agent's": ("/v1/corrections", {"agentId": AGENT, "projectId": project}),
        "cases": (f"/v1/agents/{AGENT}/test-set/cases", {}),
    }
    counted = {}
    for name, (path, params) in lists.items():
        seen: list[Any] = []
        cursor = None
        while True:
            page = client.get(path, params={**params, "limit": 2, "cursor": cursor}).json()
            seen.extend(page["data"])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        counted[name] = len(seen)
    for judgment in client.get("/v1/judgments", params={"limit": 3}).json()["data"]:
        assert client.get(f"/v1/judgments/{judgment['id']}").status_code == 200
    return counted


def test_the_plan_check_sees_a_scan_of_a_growing_table(tmp_path: Path) -> None:
    with served(tmp_path) as (_, ctx):
        with traced(ctx) as statements:
            ctx.db.all("SELECT id FROM runs WHERE input = ?", ("{}",))
            ctx.db.all("SELECT id FROM runs WHERE id = ?", ("x",))
        assert scans(ctx, statements) == {"SELECT id FROM runs WHERE input = ?": ["SCAN runs"]}


def _running_eval_run(ctx: Context, cases: int, done: int) -> str:
    """A stored `running` eval run of `cases` cases, `done` of them finished."""
    run_id = f"eval-{cases}-{done}"
    eval_store.insert(ctx.db, eval_store.EvalRunRow(
        run_id=run_id, tenant_id=ctx.tenant_id, project_id="p", suite_id="s",
        suite_version="1.0.0", kind="judged", status="running",
        started_at=now_iso(), case_count=cases,
    ))  # fmt: skip
    for index in range(done):
        eval_store.add_case(ctx.db, run_id, index, f"case-{index}", _finished(index), now_iso())
    eval_store.add_case(ctx.db, run_id, 0, "case-0", _finished(0), now_iso())  # stored again
    return run_id


def _finished(index: int) -> FinishedCase:
    """A finished case with nothing judged."""
    score = CaseScore(0.0, 0.0, 0, 0, 0.0, 0.0)
    result = CaseResult(f"case-{index}", [], score, [score], False, 0, False, False)
    return FinishedCase(result, [], [], "0.1.0")


def test_a_poll_of_a_running_eval_run_counts_progress_without_reading_cases(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (client, ctx):
        run_id = _running_eval_run(ctx, cases=5, done=3)
        with traced(ctx) as statements:
            polled = client.get(f"/v1/eval-runs/{run_id}")
    assert polled.status_code == 200
    assert polled.json()["progress"] == {"casesDone": 3, "cases": 5}
    assert statements, "the poll read the eval run"
    assert [sql for sql in statements if "eval_run_cases" in sql] == []


STALLING_MODELS = '''\
"""0.2.0 as an async function model that stalls its loop, as a replay's work between awaits
does, until the test writes `release` (or 5 s pass); `left` says it answered."""

import time
from pathlib import Path

from kindgi_dev.models import Reply, model

HERE = Path(__file__).parent


@model(default=True)
async def candidate(turn):
    (HERE / "entered").touch()
    deadline = time.monotonic() + 5
    while not (HERE / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    (HERE / "left").touch()
    return Reply(text="Try these.", output={"articles": []})
'''


def test_a_poll_is_answered_while_a_replay_holds_its_loop(tmp_path: Path) -> None:
    """Replays run on a loop of their own: a poll is answered while one is mid-way."""
    models = tmp_path / "stalling_models.py"
    models.write_text(STALLING_MODELS)
    with served(tmp_path, ("0.1.0", "0.2.0"), models) as (client, ctx):
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        run_id = start_version(client, f"{SET}/runs", project).json()["runId"]
        deadline = time.monotonic() + 10
        while not (tmp_path / "entered").exists():
            assert time.monotonic() < deadline, "no replay started"
            time.sleep(0.01)
        polled = client.get(f"/v1/eval-runs/{run_id}")
        assert not (tmp_path / "left").exists(), "the poll waited for the replay"
        assert polled.status_code == 200
        assert polled.json()["status"] == "running"
        assert polled.json()["progress"]["casesDone"] == 0
        (tmp_path / "release").touch()
        done = finish(client, run_id)
    assert done["status"] == "completed"
    assert done["result"]["summary"]["cases"] == 3


def test_a_test_set_run_reads_its_frozen_cases_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an eval run holds must not grow with its cases: it reads them as it reaches them."""
    monkeypatch.setattr(replay_cases, "PAGE", 2)
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        with traced(ctx) as statements:
            run_id = start_version(client, f"{SET}/runs", project).json()["runId"]
            done = finish(client, run_id)
        frozen = client.get(f"/v1/test-sets/{done['suiteId']}/versions/1.0.0/cases").json()
    reads = [sql for sql in statements if "FROM test_set_version_cases" in sql and "seq >" in sql]
    assert len(reads) == 2, "three cases, two to a page"
    assert done["result"]["summary"]["cases"] == 3
    assert [c["caseId"] for c in done["result"]["perCase"]] == [c["id"] for c in frozen["data"]]


SET = f"/v1/agents/{AGENT}/test-set"


def _items(articles: list[str]) -> list[dict[str, Any]]:
    return [
        {"key": key, "pointer": f"/output/articles/{rank}", "rank": rank,
         "verdict": "right" if rank == 0 else "wrong"}
        for rank, key in enumerate(articles)
    ]  # fmt: skip


def _counts(client: TestClient) -> tuple[dict[str, int], dict[str, int]]:
    """The summary's counts, and the same counted from every case the set lists."""
    listed = client.get(f"{SET}/cases", params={"include": "retired", "limit": 200}).json()
    retired = sum(1 for case in listed["data"] if case.get("retired"))
    recount = {"active": len(listed["data"]) - retired, "retired": retired}
    return client.get(SET).json()["cases"], recount


def test_the_set_counts_follow_every_change_to_its_cases(tmp_path: Path) -> None:
    """Kept counts agree with the cases listed after each kind of change, at exact numbers."""
    with served(tmp_path) as (client, ctx):
        runs = tutorial_runs(ctx)
        password, charged, package = (runs[q] for q in QUESTIONS)
        seen: list[dict[str, int]] = []

        def check(active: int, retired: int = 0) -> None:
            summary, recount = _counts(client)
            assert summary == recount == {"active": active, "retired": retired}, len(seen)
            seen.append(summary)

        def correct(run_id: str, **extra: Any) -> dict[str, Any]:
            question = next(q for q, r in runs.items() if r == run_id)
            body = {"runId": run_id, "items": _items(QUESTIONS[question]), **extra}
            answer = client.post("/v1/corrections", json=body)
            assert answer.status_code == 201, answer.text
            return dict(answer.json())

        check(0)
        first = correct(password)
        correct(charged)
        theirs = correct(package, participantId="p-7")
        check(3)
        correct(password)  # supersedes the caller's first correction of it
        correct(password, participantId="p-8")
        check(4)
        assert client.get(f"/v1/corrections/{first['id']}").json()["replacedBy"]
        latest = client.get("/v1/corrections", params={"runId": charged}).json()["data"][0]
        path = f"/v1/corrections/{latest['id']}"
        assert client.patch(path, json={"status": "wont-fix"}).status_code == 200
        check(3)
        assert client.patch(path, json={"status": "with-owner"}).status_code == 200
        check(4)
        assert client.post("/v1/erasures", json={"participantId": "p-8"}).status_code == 200
        check(3)
        retire = client.post(f"{SET}/cases/{theirs['id']}/retire", json={"reason": "merged"})
        assert retire.status_code == 200, retire.text
        check(2, 1)
        hand = {"runId": package, "items": _items(["kb-302"])[:1]}
        added = client.post(f"{SET}/cases", json=hand)
        assert added.status_code == 201, added.text
        check(3, 1)
        gone = client.post(f"{SET}/cases/{added.json()['id']}/retire", json={"reason": "dup"})
        assert gone.status_code == 200, gone.text
        check(2, 2)
        correct(package, participantId="p-9", items=[], answer={"verdict": "right"})
        check(3, 2)
        judgments = client.get("/v1/judgments", params={"runId": charged}).json()["data"]
        for judgment in judgments:
            unregistered = client.post(f"/v1/judgments/{judgment['id']}/unregister")
            assert unregistered.status_code == 200, unregistered.text
        check(2, 2)
    with served(tmp_path) as (client, _):
        check(2, 2)


def test_an_eval_run_s_concurrency_follows_the_model_s_provider(tmp_path: Path) -> None:
    """CPU count for function models, 16 for an HTTP provider, the option when given."""
    http = {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    providers = '[tool.kindgi-dev.providers]\ndefault = "openai"\n'
    (tmp_path / "f").mkdir()
    (tmp_path / "h").mkdir()
    with served(tmp_path / "f", models_file=models_file(tmp_path, "same-search")) as (_, ctx):
        agent = catalog.get_agent(ctx, AGENT, "0.1.0")
        assert models.eval_concurrency(ctx, agent) == (os.cpu_count() or 1)
    with served(tmp_path / "h", env=http, pyproject_extra=providers) as (_, ctx):
        assert models.eval_concurrency(ctx, agent) == models.HTTP_EVAL_CONCURRENCY == 16
        pinned = Context(ctx.db, ctx.identity, replace(ctx.settings, eval_concurrency=3))
        assert models.eval_concurrency(pinned, agent) == 3


@contextmanager
def paged_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> Iterator[tuple[TestClient, Context, list[dict[str, Any]]]]:
    """An instance with `count` finished test-set runs of three cases each (their answers),
    whose cases are read two to a page; each run's own end, memory given back, is over."""
    monkeypatch.setattr(eval_store, "CASE_PAGE", 2)
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        correct_tutorial(client, tutorial_runs(ctx))
        project = client.get("/v1/projects/default").json()["id"]
        done = [
            finish(client, start_version(client, f"{SET}/runs", project).json()["runId"])
            for _ in range(count)
        ]
        deadline = time.monotonic() + 10
        while ctx.eval_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        yield client, ctx, done


def test_a_finished_run_is_summed_up_and_answered_a_page_of_cases_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ending a run and reading it must not hold every case at once: the row keeps the
    summary, and the cases are read from `eval_run_cases` a page at a time, in order;
    what reading several pages took goes back to the system afterwards."""
    with paged_runs(tmp_path, monkeypatch, 1) as (client, ctx, [done]):
        run_id = done["runId"]
        given_back: list[str] = []
        monkeypatch.setattr(memory, "give_back", lambda: given_back.append(run_id))
        with traced(ctx) as statements:
            answered = client.get(f"/v1/eval-runs/{run_id}")
        stored = ctx.db.one("SELECT result FROM eval_runs WHERE run_id = ?", (run_id,))
        cases = [
            c.result.case_id for page in eval_store.finished_pages(ctx.db, run_id) for c in page
        ]
    assert answered.status_code == 200
    assert answered.headers["content-type"] == "application/json"
    assert answered.json() == done
    assert [c["caseId"] for c in done["result"]["perCase"]] == cases
    assert len(cases) == 3 and done["result"]["summary"]["cases"] == 3
    pages = [sql for sql in statements if "FROM eval_run_cases" in sql]
    assert len(pages) == 3, "three cases, two to a page, and the read that finds none left"
    assert stored is not None and "per_case" not in stored["result"]
    assert given_back == [run_id], "reading more than a page gives the memory back once"


def test_listed_runs_are_written_with_their_cases_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list answers each run as its own read does, cases included, reading them a page
    at a time; its cursor still leads to the next page; the console's list and its watch
    of a run's progress read none."""
    with paged_runs(tmp_path, monkeypatch, 2) as (client, ctx, [first, second]):
        given_back: list[int] = []
        monkeypatch.setattr(memory, "give_back", lambda: given_back.append(1))
        with traced(ctx) as statements:
            listed = client.get("/v1/eval-runs")
        given = len(given_back)
        one = client.get("/v1/eval-runs", params={"limit": 1})
        after = client.get("/v1/eval-runs", params={"limit": 1, "cursor": one.json()["nextCursor"]})
        browser = TestClient(client.app, base_url=str(client.base_url))
        browser.get(console_link(client.app, str(client.base_url)), follow_redirects=False)
        with traced(ctx) as console_statements:
            page = browser.get(f"/console/test-cases/agents/{AGENT}")
            watched = browser.get(f"/console/eval-runs/{first['runId']}/events")
    assert listed.status_code == 200, listed.text
    assert listed.headers["content-type"] == "application/json"
    assert listed.json() == {"data": [second, first], "hasMore": False}
    pages = [sql for sql in statements if "FROM eval_run_cases" in sql]
    assert len(pages) == 6, "three cases each, two to a page, and the read that finds none"
    assert given == 2, "each run's pages, once read, give their memory back"
    assert one.json()["data"] == [second] and one.json()["hasMore"] is True
    assert after.status_code == 200, after.text
    assert after.json()["data"] == [first] and after.json()["hasMore"] is False
    assert page.status_code == 200 and "0.1.0" in page.text
    assert 'data: {"casesDone": 3, "cases": 3}' in watched.text
    assert not [sql for sql in console_statements if "FROM eval_run_cases" in sql]


def test_a_finished_run_s_events_read_its_cases_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each case's frame, then the terminal frame with the whole result as the run's answer
    has it, each read a page of cases at a time, never all at once."""
    with paged_runs(tmp_path, monkeypatch, 1) as (client, ctx, [done]):
        run_id = done["runId"]
        with traced(ctx) as statements:
            stream = client.get(f"/v1/eval-runs/{run_id}/events")
    frames = [
        dict(line.split(": ", 1) for line in block.splitlines())
        for block in stream.text.strip().split("\n\n")
    ]
    *cases, end = frames
    assert [f["id"] for f in cases] == [f"{run_id}:case:{i}" for i in range(3)]
    assert [json.loads(f["data"])["caseId"] for f in cases] == [
        c["caseId"] for c in done["result"]["perCase"]
    ]
    assert end["event"] == "eval-run.completed"
    assert json.loads(end["data"]) == {"runId": run_id, "status": "completed",
                                       "result": done["result"]}  # fmt: skip
    reads = [sql for sql in statements if "FROM eval_run_cases" in sql]
    assert all(re.search(r"LIMIT 2\b", sql) for sql in reads), reads
    assert len(reads) == 6, "frames: 2, 1, none left; the end: 2, 1, none left"


def test_a_run_s_console_page_shows_its_cases_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of thousands of cases opens like one of ten: the page reads and draws one
    page of cases, with links to the pages before and after."""
    monkeypatch.setattr(console_eval_runs, "CASES_SHOWN", 2)
    with paged_runs(tmp_path, monkeypatch, 1) as (client, ctx, [done]):
        browser = TestClient(client.app, base_url=str(client.base_url))
        browser.get(console_link(client.app, str(client.base_url)), follow_redirects=False)
        path = f"/console/eval-runs/{done['runId']}"
        with traced(ctx) as statements:
            first = browser.get(path)
        later = browser.get(path, params={"from": 2})
        beyond = browser.get(path, params={"from": 7})
        monkeypatch.setattr(console_eval_runs, "CASES_SHOWN", 50)
        whole = browser.get(path)
    assert first.status_code == later.status_code == beyond.status_code == 200
    pages = re.search(r'<p class="pages" id="case-pages">(.*?)</p>', first.text)
    assert pages is not None and re.sub("<[^>]+>", "", pages.group(1)) == (
        "Cases 1–2 of 3. Later cases"
    )
    assert 'href="?from=2"' in pages.group(1)
    later_pages = re.search(r'<p class="pages" id="case-pages">(.*?)</p>', later.text)
    assert later_pages is not None and re.sub("<[^>]+>", "", later_pages.group(1)) == (
        "Case 3 of 3. Earlier cases"
    )
    assert 'href="?from=0"' in later_pages.group(1)
    assert len(headings(whole.text)) == 3 and "case-pages" not in whole.text
    assert headings(first.text) + headings(later.text) == headings(whole.text)
    assert headings(beyond.text) == headings(first.text), "past the end: the first page"
    reads = [sql for sql in statements if "FROM eval_run_cases" in sql]
    assert reads and all(sql.endswith("LIMIT 2 OFFSET 0") for sql in reads), reads


def headings(page: str) -> list[str]:
    """The headings of the cases an eval run's console page shows, in order."""
    return re.findall(r'<section class="case card">\s*<h3>(.*?)</h3>', page)
