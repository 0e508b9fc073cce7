"""Issue 22, point 2: every stored number has a bound that keeps what is summed from it
finite; a value beyond it is a 400 naming the field, and nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import AGENT, QUESTIONS, SEARCH, served, tutorial_runs
from starlette.testclient import TestClient
from tables import every_row
from test_test_set_pull import remote

from kindgi_dev.domain.bounds import MAX_NUMBER, MAX_RANK, MAX_WEIGHT, MIN_NUMBER
from kindgi_dev.domain.stored_values import COPY_DEPTH, cut_marker
from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))
CASES = f"/v1/agents/{AGENT}/test-set/cases"
PULLED = f"{AGENT}~0b6f3a52-5d0e-4f7e-9d55-1f1c8f6b2a10"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Context, dict]]:
    """The tutorial's runs, one correction and one judge class, for the refusals to aim at."""
    with served(tmp_path_factory.mktemp("bounds")) as (client, ctx):
        run_id = tutorial_runs(ctx)[PASSWORD]
        item = {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
        made = client.post("/v1/corrections", json={"runId": run_id, "items": [item]})
        body = {"scope": {"kind": "tenant"}, "name": "expert", "weight": 2}
        group = client.post("/v1/judge-classes", json=body)
        assert made.status_code == group.status_code == 201
        yield client, ctx, {"run": run_id, "correction": made.json()["id"],
                            "class": group.json()["id"]}  # fmt: skip


def _item(rank: Any) -> dict[str, Any]:
    return {"key": "kb-102", "pointer": "/output/articles/1", "rank": rank, "verdict": "wrong"}


def _call(args: dict[str, Any]) -> dict[str, Any]:
    return {"verdict": "wrong", "shouldCall": [{"toolId": SEARCH, "args": args}]}


def _requests(ids: dict[str, str], excess: int) -> list[tuple[str, str, dict[str, Any], str]]:
    """Each write of a rank or a weight, `excess` beyond its bound: method, path, body, field."""
    run, correction, group = ids["run"], ids["correction"], ids["class"]
    rank, weight = MAX_RANK + excess, MAX_WEIGHT + excess
    return [
        ("POST", "/v1/corrections", {"runId": run, "items": [_item(rank)]}, "items/0/rank"),
        ("POST", f"/v1/corrections/{correction}/items", _item(rank), "rank"),
        ("POST", "/v1/judgments", {"runId": run, "verdict": "no", "item": _item(rank)},
         "item/rank"),
        ("POST", CASES, {"runId": run, "items": [_item(rank)]}, "items/0/rank"),
        ("POST", "/v1/judge-classes", {"scope": {"kind": "tenant"}, "name": "heavy",
                                       "weight": weight}, "weight"),
        ("PATCH", f"/v1/judge-classes/{group}", {"weight": weight}, "weight"),
    ]  # fmt: skip


def _refused(answer: Any, field: str) -> None:
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] in ("bad-input", "validation-failed")
    assert error["details"]["field"] == field, error


@pytest.mark.parametrize("excess", [1, 10**12, 2**62])
def test_a_rank_or_weight_beyond_its_bound_is_refused(app: Any, excess: int) -> None:
    client, ctx, ids = app
    before = every_row(Path(ctx.db.path))
    for method, path, body, field in _requests(ids, excess):
        _refused(client.request(method, path, json=body), field)
    assert every_row(Path(ctx.db.path)) == before


def test_a_weight_of_1e308_is_refused_before_it_can_overflow_a_sum(app: Any) -> None:
    client, ctx, ids = app
    before = every_row(Path(ctx.db.path))
    body = {"scope": {"kind": "tenant"}, "name": "heavy", "weight": 1e308}
    _refused(client.post("/v1/judge-classes", json=body), "weight")
    _refused(client.patch(f"/v1/judge-classes/{ids['class']}", json={"weight": 1e308}), "weight")
    assert every_row(Path(ctx.db.path)) == before


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (b"1e23", "n"),
        (b"-1e23", "n"),
        (b"9.3e18", "n"),
        (b"-9223372036854775809", "n"),
        (b"-9.3e18", "n"),
        (b'{"deeper": [1, 2, 1.5e300]}', "n/deeper/2"),
    ],
)
def test_a_number_beyond_64_bits_is_refused_in_any_value_however_it_is_written(
    app: Any, raw: bytes, field: str
) -> None:
    client, ctx, ids = app
    before = every_row(Path(ctx.db.path))
    run, correction = ids["run"], ids["correction"]
    args = (
        b'{"decisions": {"verdict": "wrong", "shouldCall": [{"toolId": "%s", "args": {"n": %s}}]}'
    )
    decisions = args % (SEARCH.encode(), raw)
    headers = {"content-type": "application/json"}
    where = f"decisions/shouldCall/0/args/{field}"
    for method, path, body in (
        ("POST", "/v1/corrections", b'{"runId": "%s", ' % run.encode() + decisions[1:] + b"}"),
        ("PATCH", f"/v1/corrections/{correction}", decisions + b"}"),
        ("POST", CASES, b'{"runId": "%s", ' % run.encode() + decisions[1:] + b"}"),
    ):
        _refused(client.request(method, path, content=body, headers=headers), where)
    started = b'{"agent": "%s", "input": {"n": %s}}' % (AGENT.encode(), raw)
    _refused(client.post("/v1/runs", content=started, headers=headers), f"input/{field}")
    assert every_row(Path(ctx.db.path)) == before


@pytest.mark.parametrize(
    ("option", "field"),
    [
        ({"repetitions": 0}, "repetitions"),
        ({"repetitions": 11}, "repetitions"),
        ({"k": 0}, "k"),
        ({"k": 101}, "k"),
        ({"sample": {"part": "search", "seed": "s", "holdOutShare": 0.95}}, "sample/holdOutShare"),
    ],
)
def test_an_eval_runs_settings_keep_their_bounds(app: Any, option: dict, field: str) -> None:
    client, ctx, _ = app
    before = every_row(Path(ctx.db.path))
    project = client.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "agentRef": {"agentId": AGENT}, **option}
    _refused(client.post(f"/v1/agents/{AGENT}/test-set/runs", json=body), field)
    assert every_row(Path(ctx.db.path)) == before


def test_the_bounds_themselves_are_kept_as_given(tmp_path: Path) -> None:
    with served(tmp_path) as (client, ctx):
        run_id = tutorial_runs(ctx)[PASSWORD]
        body = {"scope": {"kind": "tenant"}, "name": "heaviest", "weight": MAX_WEIGHT}
        group = client.post("/v1/judge-classes", json=body)
        assert (group.status_code, group.json()["weight"]) == (201, 1_000_000)
        args = {"n": MAX_NUMBER, "m": MIN_NUMBER, "x": 9.2e18}
        made = client.post("/v1/corrections", json={
            "runId": run_id, "items": [_item(MAX_RANK)], "decisions": _call(args),
            "judgeClassId": group.json()["id"],
        })  # fmt: skip
        assert made.status_code == 201, made.text
        read = client.get(f"/v1/corrections/{made.json()['id']}").json()
    assert read["items"][0]["rank"] == 1_000_000
    assert read["decisions"]["shouldCall"][0]["args"] == args


def test_the_document_names_the_bounds(app: Any) -> None:
    client, _, _ = app
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["CorrectionItemBody"]["properties"]["rank"]["anyOf"][0]["maximum"] == MAX_RANK
    assert schemas["CreateJudgeClassBody"]["properties"]["weight"]["maximum"] == MAX_WEIGHT
    assert schemas["UpdateJudgeClassBody"]["properties"]["weight"]["maximum"] == MAX_WEIGHT


def test_a_pulled_version_is_kept_within_the_bounds_too(tmp_path: Path) -> None:
    deep: Any = "x"
    for _ in range(300):
        deep = {"a": deep}
    case = {"id": "case-1", "kind": "hand", "runId": "run-1", "madeOn": "0.1.0",
            "judgeClassWeight": 1e308,
            "expect": {"items": [{"key": "kb-1", "verdict": "right", "rank": 10**15}]},
            "run": {"agentId": AGENT, "output": deep}}  # fmt: skip
    path = f"/v1/test-sets/{PULLED}/versions/1.0.0"
    with served(tmp_path) as (client, _), remote([case]) as stub:
        pulled = client.post(f"{path}/pull", json={"from": stub.url})
        assert pulled.status_code == 201, pulled.text
        again = client.post(f"{path}/pull", json={"from": stub.url})
        assert (again.status_code, again.json()["pulled"]) == (200, False)
        (kept,) = client.get(f"{path}/cases").json()["data"]
    assert (kept["judgeClassWeight"], kept["expect"]["items"][0]["rank"]) == (MAX_WEIGHT, MAX_RANK)
    output = kept["run"]["output"]
    for _ in range(COPY_DEPTH - 2):  # the case, its run, then its output: 200 levels in all
        output = output["a"]
    assert output == cut_marker(COPY_DEPTH)
