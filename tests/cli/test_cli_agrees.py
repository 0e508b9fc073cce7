"""Where our CLI said other things than the real CLI 0.1.10 (issue 28): `eval-runs start`
without `--project`, a word that names no subcommand, the tag of a 400 `…-not-found`, and
whole numbers printed as `1`, not `1.0`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_main
from serving import serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from kindgi_dev.cli.http import tag_of
from kindgi_dev.cli.nearest import nearest


class Recorder:
    """A stand-in API that records each request and answers one body to every GET."""

    def __init__(self, body: Any) -> None:
        self.body = body
        self.seen: list[tuple[str, str]] = []

    async def handle(self, request: Request) -> JSONResponse:
        self.seen.append((request.method, request.url.path))
        return JSONResponse(self.body)


def serve(body: Any) -> Iterator[tuple[Recorder, str]]:
    found = Recorder(body)
    app = Starlette(routes=[Route("/{path:path}", found.handle, methods=["GET", "POST"])])
    with serve_app(app) as url:
        yield found, url


def test_eval_runs_start_without_project_is_a_usage_error_before_anything(
    pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for found, url in serve({}):
        (pack / ".kindgirc.json").write_text(json.dumps({"apiUrl": url, "token": "kgi_bt_x"}))
        code, out, err = run_main(["eval-runs", "start", "acme.picks", "--agent=a"], capsys)
        assert (code, out) == (2, "")
        assert err.splitlines() == [
            "Error: --project=<id> is required",
            "Usage: kindgi eval-runs start --help",
        ]
        assert found.seen == []
    (pack / ".kindgirc.json").unlink()
    code, _, err = run_main(["eval-runs", "start", "acme.picks"], capsys)
    assert code == 2 and err.startswith("Error: --project=<id> is required")  # no URL needed


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (["runs", "lst"], 'Unknown subcommand "lst" for kindgi runs. Did you mean "list"?'),
        (["runs", "show", "r-1"], 'Unknown subcommand "show" for kindgi runs. Did you mean "get"?'),
        (["judgments", "delete"],
         'Unknown subcommand "delete" for kindgi judgments. Did you mean "remove"?'),
        (["eval-runs", "strat"],
         'Unknown subcommand "strat" for kindgi eval-runs. Did you mean "start"?'),
        (["runs", "unstart"], 'Unknown subcommand "unstart" for kindgi runs.'),
        (["judgement", "list"], "Unknown command: judgement list"),
    ],
)  # fmt: skip
def test_a_word_that_names_no_subcommand_says_the_nearest_one(
    pack: Path, capsys: pytest.CaptureFixture[str], args: list[str], first: str
) -> None:
    code, out, err = run_main(args, capsys)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[:2] == [first, ""]
    assert lines[2].startswith("Usage: kindgi")


def test_nearest_follows_the_real_cli_s_rules() -> None:
    names = ["list", "get", "cancel", "journal", "stream", "start", "resume"]
    assert [nearest(w, names) for w in ("lst", "ls", "describe", "jornal", "stat", "unstart")] == [
        "list", "list", "get", "journal", "start", None]  # fmt: skip
    assert nearest("register", ["unregister", "publish"]) == "publish"
    assert nearest("lsit", ["list"]) == "list"  # a swap is one edit
    assert nearest("xyz", ["get"]) is None


@pytest.mark.parametrize(
    ("status", "code", "tag"),
    [(400, "item-not-found", "invalid-request"), (404, "run-not-found", "not-found"),
     (409, "slug-conflict", "slug-conflict"), (422, "provider-config-invalid", "invalid-request"),
     (501, "not-in-kindgi-dev", "not-in-kindgi-dev"), (403, "permission-denied", "auth")],
)  # fmt: skip
def test_an_error_s_tag_is_the_real_cli_s(status: int, code: str, tag: str) -> None:
    assert tag_of(status, code) == tag


def test_whole_numbers_print_as_the_real_cli_prints_them(
    pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = {"data": [{"id": "jc-1", "weight": 2.0, "share": 0.5}], "hasMore": False}
    for _, url in serve(page):
        (pack / ".kindgirc.json").write_text(json.dumps({"apiUrl": url, "token": "kgi_bt_x"}))
        code, out, _ = run_main(["judge-classes", "list"], capsys)
        assert code == 0
        assert json.loads(out) == page and '"weight": 2,' in out and '"share": 0.5' in out
        code, out, _ = run_main(["judge-classes", "list", "--raw"], capsys)
        assert out.strip() == '{"data":[{"id":"jc-1","weight":2,"share":0.5}],"hasMore":false}'
