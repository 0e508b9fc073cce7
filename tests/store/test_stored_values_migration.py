"""Issue 22, point 3: rows no answer could render, seeded through SQL on a database at schema
0028, read back through every endpoint and console page that shows them once m0029 ran."""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from correction_rows import articles_of, correct, judge_class
from factories import AGENT, SEARCH, served, tutorial_runs
from starlette.testclient import TestClient

from kindgi_dev.app import console_link
from kindgi_dev.domain.bounds import ARGS_DEPTH, MAX_NUMBER, MAX_RANK, MAX_WEIGHT
from kindgi_dev.domain.stored_values import COPY_DEPTH, MAX_SUM, cut_marker
from kindgi_dev.services.context import Context
from kindgi_dev.store import db as store_db
from kindgi_dev.store.eval_run_json import unpacked_case
from kindgi_dev.store.ids import unpacked

VERSIONS = ("0.1.0", "0.2.0")
SUITE = "acme.heavy"
PULLED = "acme.pulled"
MODELS = '''\
"""0.2.0 as a function model: the same search, then the first article only."""

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def candidate(turn):
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    return Reply(text="Try this.", output={"articles": [{"id": "kb-101", "title": "Reset"}]})
'''


def nested(levels: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def innermost(value: Any) -> Any:
    while isinstance(value, dict) and "a" in value:
        value = value["a"]
    return value


CONSOLE_ARGS = {"query": "reset \ud800", "deep": nested(500), "big": 1e23, "nan": float("nan")}
"""What the console's form used to keep from `with arguments (JSON)`."""


def _finish(ctx: Context, run_id: str) -> None:
    """Wait for an eval run to end (read from its row: its answer is what breaks)."""
    for _ in range(400):
        row = ctx.db.one("SELECT status FROM eval_runs WHERE run_id = ?", (run_id,))
        if row is not None and row["status"] not in ("pending", "running"):
            assert row["status"] == "completed", row["status"]
            return
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def _old_results(client: TestClient, ctx: Context) -> dict[str, Any]:
    """What a class of weight 1e308 (kept by SQL, as the API kept it before) made: a suite
    whose sums are Infinity, eval runs whose metrics are NaN, frozen cases of that weight."""
    runs = list(tutorial_runs(ctx).values())
    heavy = judge_class(ctx, 1e308)
    for when, participant in enumerate(("p2", "")):  # the console's form shows the newest
        for run_id in runs:
            correct(ctx, run_id, articles_of(run_id, ctx), judge_class_id=heavy,
                    participant_id=participant, when=when)  # fmt: skip
    project = client.get("/v1/projects/default").json()["id"]
    body = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    built = client.post(f"/v1/eval-suites/{SUITE}/versions/from-judgments", json=body)
    assert built.status_code == 201, built.text
    start = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}}
    suite_run = client.post(f"/v1/eval-suites/{SUITE}/runs", json=start).json()["runId"]
    set_run = client.post(f"/v1/agents/{AGENT}/test-set/runs", json=start).json()["runId"]
    for run_id in (suite_run, set_run):
        _finish(ctx, run_id)
    return {"runs": runs, "heavy": heavy, "infinite": judge_class(ctx, float("inf"), "endless"),
            "project": project, "suite_run": suite_run, "set_run": set_run}  # fmt: skip


LATER_TABLES = ("gate_policies", "live_pins", "promotions", "approvals", "reviewers",
                "api_tokens", "fact_revisions", "memory_erasures", "guardrail_outcomes",
                "run_waits", "registered_providers", "blocks", "kept_answers",
                "kept_verdicts")  # fmt: skip
"""The tables of the migrations after m0029 (m0030 releases, m0031 approvals, m0033
memory, m0034 guardrail outcomes and run waits, m0036 providers, m0037 blocks, m0040
kept answers): empty here, dropped with m0029's so the database is as 0028 left it."""
LATER_COLUMNS = (("conversations", "scope"), ("conversations", "metadata"),
                 ("conversations", "unregistered_at"), ("run_tool_calls", "approval"),
                 ("projects", "production_since"), ("instance", "tenant_name"),
                 ("instance", "tenant_slug"), ("instance", "tenant_updated_at"),
                 ("runs", "block_pins"), ("runs", "asked_model"))  # fmt: skip
"""The columns m0033, m0034, m0035 and m0037 added to tables 0028 had."""


def _at_0028(path: Path) -> None:
    """The database as kindgi dev before m0029 left it."""
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DROP TABLE repaired_values")
        for table in LATER_TABLES:
            conn.execute(f"DROP TABLE {table}")
        for table, column in LATER_COLUMNS:
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 29")
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (28,)


def _rewrite(conn: sqlite3.Connection, table: str, where: str, change: Callable[[Any], Any],
             column: str = "body") -> None:  # fmt: skip
    """Change the JSON of the first row `where` holds for, written as older versions did."""
    rowid, text = conn.execute(f"SELECT rowid, {column} FROM {table} WHERE {where}").fetchone()
    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?",
                 (json.dumps(change(json.loads(text))), rowid))  # fmt: skip


def _no_yes_weight(case: Any, case_id: str) -> Any:
    """A finished case as rows were kept then (scores by name, its case id in it), its
    baseline's weight null."""
    named = unpacked_case(case, case_id)
    baseline = {**named["result"]["baseline"], "yes_weight": None}
    return {**named, "result": {**named["result"], "baseline": baseline}}


def _seed(path: Path, ids: dict[str, Any]) -> None:
    """Each kind of row the console and older versions kept that no answer could render."""
    run = ids["runs"][0]
    deep_decisions = {"verdict": "wrong", "shouldCall": [{"toolId": SEARCH, "args": CONSOLE_ARGS}]}
    with closing(sqlite3.connect(path)) as conn, conn:
        seq, ids["correction"] = conn.execute(
            "SELECT seq, id FROM corrections WHERE run_id = ? AND participant_id = ''", (run,)
        ).fetchone()
        conn.execute(
            "UPDATE corrections SET decisions = ?, answer = ? WHERE seq = ?",
            (json.dumps(deep_decisions), r'{"verdict":"wrong","shouldSay":"say \udc00 this"}', seq),
        )
        conn.execute(
            "UPDATE verdicts SET rank = ?, reason = CAST(X'6f6bed a0 806b' AS TEXT), "
            'item_value = \'{"id": "kb-101", "score": NaN}\' WHERE correction_seq = ? '
            "AND item_key = 'kb-101'".replace("ed a0 80", "eda080"),
            (2**62, seq),
        )
        (verdict,) = conn.execute(
            "SELECT id FROM verdicts WHERE correction_seq = ? AND item_key = 'kb-101'", (seq,)
        ).fetchone()
        ids["judgment"] = unpacked(verdict)
        conn.execute("UPDATE judged_run_copies SET output = ? WHERE run_id = ?",
                     (json.dumps({"deep": nested(300), "score": float("nan")}), run))  # fmt: skip
        conn.execute("UPDATE judge_classes SET weight = 9e999 WHERE id = ?", (ids["infinite"],))
        hand = {"id": "case-old", "tenant_id": ids["tenant"], "project_id": ids["project"],
                "agent_id": AGENT, "run_id": run, "made_on": "0.1.0",
                "items": json.dumps([{"key": "kb-102", "pointer": "/output/articles/1",
                                      "rank": 10**15, "verdict": "wrong"}]),
                "decisions": json.dumps(deep_decisions), "added_by_kind": "user",
                "added_by_id": "u", "created_at": "2026-01-01T00:00:00.000Z",
                "updated_at": "2026-01-01T00:00:00.000Z"}  # fmt: skip
        conn.execute(f"INSERT INTO hand_cases ({', '.join(hand)}) VALUES "
                     f"({', '.join('?' * len(hand))})", list(hand.values()))  # fmt: skip

        def frozen(case: dict[str, Any]) -> dict[str, Any]:
            case["run"]["output"] = {"deep": nested(300), "nan": float("nan")}
            return {**case, "judgeClassWeight": None}

        _rewrite(conn, "test_set_version_cases", "seq = 0", frozen)
        _rewrite(conn, "eval_suite_cases", "seq = 0",
                 lambda case: {**case, "items": [{**case["items"][0], "yesWeight": None},
                                                 *case["items"][1:]]})  # fmt: skip
        where = f"eval_run_id = '{ids['set_run']}'"
        case_id = conn.execute(f"SELECT case_id FROM eval_run_cases WHERE {where}").fetchone()[0]
        _rewrite(conn, "eval_run_cases", where, lambda case: _no_yes_weight(case, case_id),
                 "result")  # fmt: skip
        pulled = {"id": "p-1", "kind": "correction", "projectId": "elsewhere", "runId": "r-1",
                  "madeOn": "0.1.0", "expert": False, "judgeClassWeight": float("inf"),
                  "expect": {"items": [{"key": "kb-1", "pointer": "/output/articles/0",
                                        "rank": -4, "verdict": "right"}]},
                  "addedBy": {"kind": "user", "id": "\ud83d"},
                  "run": {"agentId": AGENT, "output": nested(400)}}  # fmt: skip
        conn.execute(
            "INSERT INTO pulled_test_set_versions VALUES (?, '1.0.0', ?, 1, 'd', "
            "'http://elsewhere', '2026-01-01T00:00:00.000Z')",
            (PULLED, ids["tenant"]),
        )
        conn.execute("INSERT INTO pulled_test_set_cases VALUES (?, '1.0.0', 0, ?)",
                     (PULLED, json.dumps(pulled)))  # fmt: skip


def _shown(client: TestClient, ids: dict[str, Any]) -> dict[str, str]:
    """Every endpoint and console page that shows what was seeded."""
    frozen = f"{AGENT}~{ids['project']}"
    pages = {
        "corrections": "/v1/corrections?limit=100",
        "correction": f"/v1/corrections/{ids['correction']}",
        "judgments": "/v1/judgments?limit=100",
        "judgment": f"/v1/judgments/{ids['judgment']}",
        "judge classes": "/v1/judge-classes",
        "test set": f"/v1/agents/{AGENT}/test-set",
        "cases": f"/v1/agents/{AGENT}/test-set/cases?limit=100",
        "frozen": f"/v1/test-sets/{frozen}/versions/1.0.0/cases",
        "pulled": f"/v1/test-sets/{PULLED}/versions/1.0.0/cases",
        "suite cases": f"/v1/eval-suites/{SUITE}/versions/1.0.0/cases",
        "suite run": f"/v1/eval-runs/{ids['suite_run']}",
        "set run": f"/v1/eval-runs/{ids['set_run']}",
        "eval runs": "/v1/eval-runs",
        "events": f"/v1/eval-runs/{ids['set_run']}/events",
        "run page": f"/console/runs/{ids['runs'][0]}",
        "correct page": f"/console/runs/{ids['runs'][0]}/correct",
        "set page": f"/console/test-cases/agents/{AGENT}",
        "suite page": f"/console/test-cases/suites/{SUITE}",
        "suite run page": f"/console/eval-runs/{ids['suite_run']}",
        "set run page": f"/console/eval-runs/{ids['set_run']}",
    }
    client.get(console_link(client.app, "http://127.0.0.1"))
    return {name: _read(client, path) for name, path in pages.items()}


def _read(client: TestClient, path: str) -> str:
    """The page, or `failed` when it is not a 200 (or its connection dropped mid-answer)."""
    try:
        answer = client.get(path)
    except Exception:
        return "failed"
    return answer.text if answer.status_code == 200 else "failed"


@pytest.fixture
def old_database(tmp_path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A pack folder whose database, at schema 0028, holds every kind of unreadable row."""
    models = tmp_path / "models.py"
    models.write_text(MODELS)
    with served(tmp_path, VERSIONS, models) as (client, ctx):
        ids = {**_old_results(client, ctx), "tenant": ctx.tenant_id}
    path = tmp_path / ".kindgi" / "dev.sqlite3"
    _at_0028(path)
    _seed(path, ids)
    yield tmp_path, ids


def test_without_the_repair_these_rows_break_their_answers(
    old_database: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    folder, ids = old_database
    copy = tmp_path_factory.mktemp("unrepaired") / "pack"
    shutil.copytree(folder, copy)
    skipped = [replace(m, rewrite=None) if m.version == 29 else m for m in store_db.MIGRATIONS]
    monkeypatch.setattr(store_db, "MIGRATIONS", skipped)
    with served(copy, VERSIONS, copy / "models.py") as (client, _):
        shown = _shown(client, ids)
    broken = sorted(name for name, text in shown.items() if text == "failed")
    assert broken == sorted(["corrections", "correction", "judgments", "judge classes", "cases",
                             "judgment", "frozen", "pulled", "suite cases", "suite run", "set run",
                             "eval runs", "events", "run page", "correct page", "set page",
                             "suite page", "suite run page", "set run page"]), broken  # fmt: skip


def test_every_stored_value_reads_back_once_migrated(
    old_database: tuple[Path, dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    folder, ids = old_database
    with served(folder, VERSIONS, folder / "models.py") as (client, ctx):
        shown = _shown(client, ids)
        kept = ctx.db.all("SELECT table_name, column_name, original FROM repaired_values")
    assert [name for name, text in shown.items() if text == "failed"] == []
    assert not [r for r in caplog.records if "answered as" in r.getMessage()], (
        "the answers' own fallback was not needed"
    )

    correction = json.loads(shown["correction"])
    args = correction["decisions"]["shouldCall"][0]["args"]
    assert (args["query"], args["big"], args["nan"]) == ("reset \ufffd", MAX_NUMBER, None)
    assert depth(args) == ARGS_DEPTH and innermost(args["deep"]) == cut_marker(ARGS_DEPTH)
    assert correction["answer"]["shouldSay"] == "say \ufffd this"
    first = next(i for i in correction["items"] if i["key"] == "kb-101")
    assert first["rank"] == MAX_RANK
    judgment = next(j for j in json.loads(shown["judgments"])["data"] if j["item"]["rank"] > 2)
    assert (judgment["item"]["rank"], judgment["reason"]) == (MAX_RANK, "ok\ufffdk")
    copied = json.loads(shown["judgment"])
    assert copied["itemValue"] == {"id": "kb-101", "score": None}
    assert copied["run"]["output"]["score"] is None and depth(copied["run"]["output"]) == COPY_DEPTH

    weights = {c["name"]: c["weight"] for c in json.loads(shown["judge classes"])["data"]}
    assert weights == {"experts": MAX_WEIGHT, "endless": MAX_WEIGHT}
    hand = next(c for c in json.loads(shown["cases"])["data"] if c["id"] == "case-old")
    assert hand["expect"]["items"][0]["rank"] == MAX_RANK
    assert depth(hand["expect"]["decisions"]["shouldCall"][0]["args"]) == ARGS_DEPTH

    frozen = json.loads(shown["frozen"])["data"]
    assert {c.get("judgeClassWeight") for c in frozen} == {1, MAX_WEIGHT}
    output = frozen[0]["run"]["output"]
    assert output["nan"] is None and depth(frozen[0]) == COPY_DEPTH
    (pulled,) = json.loads(shown["pulled"])["data"]
    assert (pulled["judgeClassWeight"], pulled["expect"]["items"][0]["rank"]) == (MAX_WEIGHT, 0)
    assert pulled["addedBy"]["id"] == "\ufffd" and depth(pulled) == COPY_DEPTH

    suite_items = [i for c in json.loads(shown["suite cases"])["data"] for i in c["items"]]
    yes_weights = {(i["yes"], i["yesWeight"]) for i in suite_items}
    assert yes_weights == {(2, 2 * MAX_WEIGHT), (0, 0), (2, 0)}, "a null counts nothing"
    assert {(i["no"], i["totalWeight"]) for i in suite_items if i["yes"] == 0} == {
        (2, 2 * MAX_WEIGHT)
    }
    for name in ("suite run", "set run"):
        metrics = json.loads(shown[name])["result"]["summary"]["metrics"]
        share = metrics["weightedYesShare"]
        assert share["baseline"] is None and share["baselineWeight"] == MAX_SUM
    assert "Infinity" not in shown["events"] and "NaN" not in shown["events"]
    assert cut_marker(ARGS_DEPTH) in html.unescape(shown["correct page"])

    columns = {(table, column) for table, column, _ in kept}
    assert columns == {
        ("corrections", "decisions"), ("corrections", "answer"), ("verdicts", "reason"),
        ("verdicts", "item_value"), ("verdicts", "rank"), ("judged_run_copies", "output"),
        ("hand_cases", "items"),
        ("hand_cases", "decisions"), ("test_set_version_cases", "body"),
        ("pulled_test_set_cases", "body"), ("eval_suite_cases", "body"),
        ("eval_runs", "result"), ("eval_run_cases", "result"), ("judge_classes", "weight"),
    }  # fmt: skip
    original = next(o for t, c, o in kept if (t, c) == ("corrections", "decisions"))
    assert json.loads(original)["shouldCall"][0]["args"]["big"] == 1e23, "nothing is lost"
