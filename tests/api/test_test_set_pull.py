"""`POST /v1/test-sets/{id}/versions/{version}/pull`: a version from another runtime, kept
read-only here, and tried like a version frozen here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from correction_rows import tutorial_corrections
from factories import AGENT, QUESTIONS, served, tutorial_runs
from serving import serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from kindgi_dev.remote import Remote, Transfer
from kindgi_dev.services.context import Context

SET_ID = f"{AGENT}~0b6f3a52-5d0e-4f7e-9d55-1f1c8f6b2a10"
PULL = f"/v1/test-sets/{SET_ID}/versions/1.0.0/pull"
REMOTE_TOKEN = "remote-secret-token"

CANDIDATE = '''\
"""0.2.0 of the tutorial: the same search, and only the article that answers."""

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def candidate(turn):
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": turn.question()})])
    first = turn.tool_results()[-1].content["articles"][0]
    return Reply(text="Try this.", output={"articles": [first]})
'''


@dataclass
class StubRemote:
    """A remote runtime serving one version's cases two a page; it records every header."""

    cases: list[dict[str, Any]]
    fail_on_page: int | None = None
    url: str = ""
    listed: bool = False
    suite: bool = False
    seen: list[dict[str, str]] = field(default_factory=list)

    async def cases_page(self, request: Request) -> Response:
        self.seen.append(dict(request.headers))
        if request.path_params["version"] != "1.0.0" or self.suite != (
            "eval-suites" in request.url.path
        ):
            return JSONResponse({"error": {"code": "test-set-version-not-found",
                                           "message": "No such version there."}}, 404)  # fmt: skip
        start = int(request.query_params.get("cursor") or 0)
        if self.fail_on_page is not None and start // 2 + 1 == self.fail_on_page:
            return JSONResponse({"error": {"code": "internal-server-error",
                                           "message": "The remote fell over."}}, 500)  # fmt: skip
        more = start + 2 < len(self.cases)
        return JSONResponse({"data": self.cases[start : start + 2], "hasMore": more,
                             "nextCursor": str(start + 2) if more else None})  # fmt: skip

    async def versions(self, request: Request) -> Response:
        entry = {"version": "1.0.0", "spec": {"caseCount": len(self.cases)}}
        return JSONResponse({"data": [entry] if self.listed else [], "hasMore": False})

    def app(self) -> Starlette:
        path = "/v1/test-sets/{testSetId}/versions"
        suite = "/v1/eval-suites/{suiteId}/versions/{version}/cases"
        routes = [Route(f"{path}/{{version}}/cases", self.cases_page),
                  Route(path, self.versions), Route(suite, self.cases_page)]  # fmt: skip
        return Starlette(routes=routes)


@contextmanager
def remote(cases: list[dict[str, Any]], fail_on_page: int | None = None) -> Iterator[StubRemote]:
    stub = StubRemote(cases, fail_on_page)
    with serve_app(stub.app()) as url:
        stub.url = url
        yield stub


def _cases(n: int) -> list[dict[str, Any]]:
    return [{"id": f"case-{i}", "kind": "hand", "runId": f"run-{i}", "madeOn": "0.1.0",
             "expect": {"items": [{"key": f"kb-{i}", "verdict": "right"}]}}
            for i in range(n)]  # fmt: skip


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context]]:
    with served(tmp_path) as pair:
        yield pair


def _stored(ctx: Context) -> tuple[int, int]:
    versions = ctx.db.one("SELECT count(*) AS n FROM pulled_test_set_versions")["n"]
    cases = ctx.db.one("SELECT count(*) AS n FROM pulled_test_set_cases")["n"]
    return versions, cases


def test_a_pulled_version_reads_back_as_pulled_and_a_repeat_is_a_no_op(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    with remote(_cases(5)) as stub:
        first = client.post(PULL, json={"from": stub.url, "token": REMOTE_TOKEN})
        assert first.status_code == 201, first.text
        answer = first.json()
        assert (answer["testSetId"], answer["version"], answer["caseCount"]) == (SET_ID, "1.0.0", 5)
        assert (answer["source"]["url"], answer["pulled"]) == (stub.url, True)
        again = client.post(PULL, json={"from": stub.url, "token": REMOTE_TOKEN})
    assert (again.status_code, again.json()) == (200, {**answer, "pulled": False})
    assert _stored(ctx) == (1, 5)
    read = client.get(f"/v1/test-sets/{SET_ID}/versions/1.0.0/cases?limit=3").json()
    rest = client.get(f"/v1/test-sets/{SET_ID}/versions/1.0.0/cases",
                      params={"cursor": read["nextCursor"]}).json()  # fmt: skip
    assert read["data"] + rest["data"] == _cases(5)
    entry = client.get(f"/v1/test-sets/{SET_ID}").json()
    assert entry["spec"] == {"source": {"url": stub.url, "pulledAt": answer["source"]["pulledAt"]},
                             "caseCount": 5}  # fmt: skip
    listed = client.get("/v1/test-sets", params={"kind": "corrections"}).json()["data"]
    assert [e["version"] for e in listed if e["id"] == SET_ID] == ["1.0.0"]


def test_other_content_under_a_pulled_version_is_409_and_writes_nothing(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    with remote(_cases(3)) as stub:
        assert client.post(PULL, json={"from": stub.url}).status_code == 201
        stub.cases = _cases(4)
        refused = client.post(PULL, json={"from": stub.url})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "version-already-exists"
    assert _stored(ctx) == (1, 3)
    read = client.get(f"/v1/test-sets/{SET_ID}/versions/1.0.0/cases").json()["data"]
    assert read == _cases(3)
    entry = {"id": SET_ID, "tenantId": ctx.tenant_id, "version": "1.0.0", "kind": "corrections",
             "spec": {"cases": []}}  # fmt: skip
    published = client.post("/v1/test-sets", json=entry)
    assert (published.status_code, published.json()["error"]["code"]) == (
        409, "version-already-exists",
    )  # fmt: skip


def test_a_suite_built_before_is_pulled_from_the_eval_suites_path(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    subject = {"kind": "agent", "id": AGENT, "version": "0.1.0"}
    built = [{"caseId": f"run-{i}", "subject": subject, "input": "hi",
              "output": {"articles": []}, "items": []} for i in range(3)]  # fmt: skip
    with remote(built) as stub:
        stub.suite = True
        pulled = client.post("/v1/test-sets/acme.article-picks/versions/1.0.0/pull",
                             json={"from": stub.url})  # fmt: skip
    assert (pulled.status_code, pulled.json()["caseCount"]) == (201, 3)
    assert [h["host"] for h in stub.seen] == [stub.url.removeprefix("http://")] * 3
    read = client.get("/v1/test-sets/acme.article-picks/versions/1.0.0/cases").json()["data"]
    assert read == built
    assert _stored(ctx) == (1, 3)


def test_a_pull_never_lands_on_a_test_set_made_here(app: tuple[TestClient, Context]) -> None:
    client, ctx = app
    mine = {"id": SET_ID, "tenantId": ctx.tenant_id, "version": "1.0.0", "kind": "corrections",
            "spec": {"cases": []}}  # fmt: skip
    assert client.post("/v1/test-sets", json=mine).status_code == 201
    with remote(_cases(2)) as stub:
        refused = client.post(PULL, json={"from": stub.url})
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "version-already-exists")
    assert "was made here" in refused.json()["error"]["message"]
    assert _stored(ctx) == (0, 0)
    assert stub.seen == []


def test_a_pulled_id_and_a_suite_built_here_never_share_an_id(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    tutorial_corrections(ctx, tutorial_runs(ctx))
    project = client.get("/v1/projects/default").json()["id"]
    build = {"version": "1.0.0", "projectId": project, "agentId": AGENT}
    built = client.post("/v1/eval-suites/acme.picks/versions/from-judgments", json=build)
    assert built.status_code == 201, built.text
    with remote(_cases(2)) as stub:
        over_suite = client.post("/v1/test-sets/acme.picks/versions/2.0.0/pull",
                                 json={"from": stub.url})  # fmt: skip
        assert client.post(PULL, json={"from": stub.url}).status_code == 201
    assert (over_suite.status_code, over_suite.json()["error"]["code"]) == (
        409, "version-already-exists",
    )  # fmt: skip
    over_pulled = client.post(f"/v1/eval-suites/{SET_ID}/versions/from-judgments", json=build)
    assert (over_pulled.status_code, over_pulled.json()["error"]["code"]) == (
        409, "eval-suite-already-registered",
    )  # fmt: skip
    assert _stored(ctx) == (1, 2)


def test_the_remote_token_reaches_the_remote_only_and_is_kept_nowhere(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    with remote(_cases(3)) as stub:
        assert client.post(PULL, json={"from": stub.url, "token": REMOTE_TOKEN}).status_code == 201
    assert [h["authorization"] for h in stub.seen] == [f"Bearer {REMOTE_TOKEN}"] * 2
    assert not any(ctx.identity.token in str(h) for h in stub.seen)
    ctx.db.close()
    for file in Path(ctx.db.path).parent.iterdir():
        assert REMOTE_TOKEN.encode() not in file.read_bytes(), file


def test_plain_http_elsewhere_is_refused_before_anything_is_sent(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    refused = client.post(PULL, json={"from": "http://kindgi.example.com", "token": "t"})
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("validation-failed", "from")
    assert "plain http and not this machine" in error["message"]
    assert client.post(PULL, json={"from": "ftp://127.0.0.1/x"}).status_code == 400
    assert _stored(ctx) == (0, 0)


@pytest.mark.parametrize(
    ("body", "field", "said"),
    [
        ({"from": "http://[::1", "insecure": True}, "from", "is not a URL"),
        ({"from": "http://127.0.0.1:99999"}, "from", "is not a URL"),
        ({"from": "http://127.0.0.1:1", "token": "é"}, "token", "visible ASCII"),
        ({"from": "http://127.0.0.1:1", "token": "bad\r\nX: y"}, "token", "line breaks"),
    ],
    ids=["an unclosed IPv6 host", "a port past 65535", "a token not ASCII", "a header in a token"],
)
def test_a_url_or_a_token_that_cant_be_sent_is_400_naming_it(
    app: tuple[TestClient, Context], body: dict[str, object], field: str, said: str
) -> None:
    client, ctx = app
    refused = client.post(PULL, json=body)
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("validation-failed", field)
    assert said in error["message"]
    assert _stored(ctx) == (0, 0)


def test_a_pull_interrupted_half_way_leaves_nothing(app: tuple[TestClient, Context]) -> None:
    client, ctx = app
    with remote(_cases(5), fail_on_page=2) as stub:
        failed = client.post(PULL, json={"from": stub.url})
    assert failed.status_code == 502
    error = failed.json()["error"]
    assert error["code"] == "remote-error"
    assert error["message"] == (
        f"{stub.url} answered 500 internal-server-error: The remote fell over."
    )
    assert (error["details"]["remoteCode"], error["details"]["remoteStatus"]) == (
        "internal-server-error", 500,
    )  # fmt: skip
    assert _stored(ctx) == (0, 0)
    assert client.get(f"/v1/test-sets/{SET_ID}").status_code == 404


def test_a_remote_case_no_replay_reads_is_a_remote_error_naming_it(
    app: tuple[TestClient, Context],
) -> None:
    """A case without its run's id was kept, and every run started on the version then
    answered 500: the pull is refused instead, as the remote's mistake."""
    client, ctx = app
    cases = _cases(3)
    del cases[2]["runId"]
    with remote(cases) as stub:
        refused = client.post(PULL, json={"from": stub.url})
    assert refused.status_code == 502, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("remote-error", "cases/2/runId")
    assert error["message"] == (
        f"{stub.url} answered a case this runtime can't replay: cases/2/runId: is required"
    )
    assert _stored(ctx) == (0, 0)


def test_a_remote_version_with_two_cases_of_one_id_is_refused(
    app: tuple[TestClient, Context],
) -> None:
    client, ctx = app
    subject = {"kind": "agent", "id": AGENT, "version": "0.1.0"}
    built = [{"caseId": "run-1", "subject": subject, "items": []}] * 2
    with remote(built) as stub:
        stub.suite = True
        refused = client.post("/v1/test-sets/acme.picks/versions/1.0.0/pull",
                              json={"from": stub.url})  # fmt: skip
    assert refused.status_code == 502, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("remote-error", "cases/1/caseId")
    assert error["message"].endswith("cases/1/caseId: duplicate: an earlier case is run-1")
    assert _stored(ctx) == (0, 0)


def test_a_remote_answer_nested_too_deep_to_parse_is_a_remote_error(
    app: tuple[TestClient, Context],
) -> None:
    """The parser raised RecursionError and the pull answered 500; now it is what any other
    answer that isn't JSON is."""

    async def page(request: Request) -> Response:
        return Response("[" * 100_000, media_type="application/json")

    client, ctx = app
    routes = [Route("/v1/test-sets/{testSetId}/versions/{version}/cases", page)]
    with serve_app(Starlette(routes=routes)) as url:
        refused = client.post(PULL, json={"from": url})
    assert refused.status_code == 502, refused.text
    error = refused.json()["error"]
    assert error["code"] == "remote-error"
    assert error["message"] == f"{url} answered 200 unknown: an answer that isn't Kindgi's JSON"
    assert _stored(ctx) == (0, 0)


def test_a_remote_error_shows_the_remotes_code_and_message(
    app: tuple[TestClient, Context],
) -> None:
    client, _ = app
    with remote(_cases(1)) as stub:
        missing = client.post(PULL.replace("1.0.0", "2.0.0"), json={"from": stub.url})
    assert missing.status_code == 502
    assert missing.json()["error"]["message"] == (
        f"{stub.url} answered 404 test-set-version-not-found: No such version there."
    )


@pytest.mark.parametrize("listed", [True, False])
def test_progress_says_of_how_many_when_the_remote_lists_the_version(listed: bool) -> None:
    steps: list[Transfer] = []

    async def pull(url: str) -> list[Any]:
        async with Remote(url, REMOTE_TOKEN) as there:
            return await there.version_cases(SET_ID, "1.0.0", steps.append)

    with remote(_cases(5)) as stub:
        stub.listed = listed
        assert asyncio.run(pull(stub.url)) == _cases(5)
    total = 5 if listed else None
    assert [(s.cases, s.total) for s in steps] == [(2, total), (4, total), (5, 5)]
    assert steps[0].bytes < steps[1].bytes < steps[2].bytes


def _finish(client: TestClient, run_id: str) -> dict[str, Any]:
    for _ in range(200):
        run = client.get(f"/v1/eval-runs/{run_id}").json()
        if run["status"] not in ("pending", "running"):
            return dict(run)
        time.sleep(0.05)
    raise AssertionError("the eval run did not finish")


def _try_020(client: TestClient, path: str) -> dict[str, Any]:
    project = client.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}}
    started = client.post(path, json=body)
    assert started.status_code == 201, started.text
    return _finish(client, started.json()["runId"])


def _tried_there_and_here(
    tmp_path: Path, weight: int | None = None
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """0.2.0 tried on A's frozen set (the password case under a group of `weight`), then on
    B's pull of it: A's eval run, B's, and the cases."""
    models = tmp_path / "candidate.py"
    models.write_text(CANDIDATE)
    versions = ("0.1.0", "0.2.0")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with served(tmp_path / "a", versions, models) as (there, ctx):
        project = there.get("/v1/projects/default").json()["id"]
        group = None
        if weight is not None:
            scope = {"kind": "project", "projectId": project}
            made = there.post("/v1/judge-classes", json={"scope": scope, "name": "Leads",
                                                         "weight": weight})  # fmt: skip
            group = made.json()["id"]
        for question, run_id in tutorial_runs(ctx).items():
            correction: dict[str, Any] = {"runId": run_id, "items": [
                {"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
                 "verdict": "right" if rank == 0 else "wrong"}
                for rank, a in enumerate(QUESTIONS[question])]}  # fmt: skip
            if group and question.startswith("I forgot"):
                correction["judgeClassId"] = group
            assert there.post("/v1/corrections", json=correction).status_code == 201
        on_a = _try_020(there, f"/v1/agents/{AGENT}/test-set/runs")
        frozen = on_a["frozenVersion"]
        cases = there.get(f"/v1/test-sets/{frozen['testSetId']}/versions/"
                          f"{frozen['version']}/cases").json()["data"]  # fmt: skip
    with served(tmp_path / "b", versions, models) as (here, _), remote(cases) as stub:
        assert here.post(PULL, json={"from": stub.url}).status_code == 201
        on_b = _try_020(here, f"/v1/eval-suites/{SET_ID}/runs")
        assert here.get("/v1/runs").json()["data"] == []
        replays = here.get("/v1/runs", params={"replays": "only"}).json()["data"]
        assert sorted(r["replayOf"] for r in replays) == sorted(c["runId"] for c in cases)
    return on_a, on_b, cases


def test_a_pulled_version_is_tried_exactly_as_where_it_was_frozen(tmp_path: Path) -> None:
    on_a, on_b, _ = _tried_there_and_here(tmp_path)
    assert on_b["frozenVersion"] == {"testSetId": SET_ID, "version": "1.0.0"}
    metrics = on_b["result"]["summary"]["metrics"]
    assert metrics["weightedYesShare"]["baseline"] == pytest.approx(1 / 3)
    assert metrics["weightedYesShare"]["candidate"] == 1
    assert (metrics["judgedCoverage"]["baseline"], metrics["judgedCoverage"]["candidate"]) == (
        0.75, 0.5,
    )  # fmt: skip
    assert metrics == on_a["result"]["summary"]["metrics"]
    assert [c["tools"][0]["source"] for c in on_b["result"]["perCase"]] == ["recorded"] * 3


def test_a_pulled_case_weighs_what_its_group_weighed_where_it_was_frozen(tmp_path: Path) -> None:
    on_a, on_b, cases = _tried_there_and_here(tmp_path, weight=3)
    assert sorted(c.get("judgeClassWeight", 1) for c in cases) == [1, 1, 3]
    share = on_b["result"]["summary"]["metrics"]["weightedYesShare"]
    assert share["baselineWeight"] == 3 * 3 + 3 + 3
    assert on_b["result"]["summary"]["metrics"] == on_a["result"]["summary"]["metrics"]
