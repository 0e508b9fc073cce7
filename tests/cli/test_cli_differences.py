"""Where our CLI used to differ from the real one: bare groups, usage errors, `--version`,
tokens sent elsewhere, a stopped server, an overriding `KINDGI_API_TOKEN`, `--table`, Ctrl-C."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_main
from click.testing import CliRunner
from serving import serve_app
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from kindgi_dev.cli import eval_runs, runs
from kindgi_dev.cli.main import cli

PAGE = {"data": [{"id": "c-1", "runId": "r-1", "status": "open", "items": []}], "hasMore": False}


class Recorder:
    """A stand-in API that records every request and answers from a table."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []
        self.queries: list[str] = []
        self.answers: dict[tuple[str, str], tuple[int, Any]] = {}

    async def handle(self, request: Request) -> JSONResponse:
        auth = request.headers.get("authorization", "")
        self.seen.append((request.method, request.url.path, auth))
        self.queries.append(request.url.query)
        status, body = self.answers.get((request.method, request.url.path), (200, PAGE))
        return JSONResponse(body, status)


@pytest.fixture()
def recorder() -> Iterator[tuple[Recorder, str]]:
    found = Recorder()
    app = Starlette(routes=[Route("/{path:path}", found.handle, methods=["GET", "POST"])])
    with serve_app(app) as url:
        yield found, url


def write_rc(pack: Path, url: str, token: str = "kgi_bt_mine") -> None:
    (pack / ".kindgirc.json").write_text(json.dumps({"apiUrl": url, "token": token}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_bare_group_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["runs"], capsys)
    assert code == 0
    assert out.startswith("Usage: kindgi runs [OPTIONS] COMMAND [ARGS]...")


def test_a_usage_error_says_error_then_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["runs", "start", "--bogus"], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "Error: No such option '--bogus'. Did you mean '--verbose'?",
        "Usage: kindgi runs start --help",
    ]


@pytest.mark.parametrize(
    ("args", "flag", "command"),
    [
        (["projects", "create", "--name=Support", "--org="], "--org", "projects create"),
        (["projects", "create", "--name="], "--name", "projects create"),
        (["runs", "list", "--url="], "--url", "runs list"),
        (["runs", "list", "--agent", ""], "--agent", "runs list"),
        (["eval-runs", "start", "s", "--flow=f", "--with="], "--with", "eval-runs start"),
        (["init", "demo", "--path="], "--path", "init"),
        (["dev", "--path="], "--path", "dev"),
    ],
)
def test_an_empty_flag_value_is_a_usage_error_and_nothing_is_sent(
    pack: Path,
    recorder: tuple[Recorder, str],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    flag: str,
    command: str,
) -> None:
    found, url = recorder
    write_rc(pack, url)
    code, out, err = run_main(args, capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"Error: {flag} takes a value", f"Usage: kindgi {command} --help"]
    assert found.seen == []
    assert sorted(p.name for p in pack.iterdir()) == [".kindgirc.json"]


def test_an_empty_pointer_is_the_whole_output(
    pack: Path, recorder: tuple[Recorder, str], capsys: pytest.CaptureFixture[str]
) -> None:
    found, url = recorder
    write_rc(pack, url)
    args = ["judgments", "add", "--run=r-1", "--item=output", "--pointer=", "--yes"]
    assert run_main(args, capsys)[0] == 0
    assert [(m, p) for m, p, _ in found.seen] == [("POST", "/v1/judgments")]


def test_version_names_the_api_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["--version"], capsys)[:2] == (0, "kindgi dev 0.1.0 (Kindgi API 0.1.0)\n")


def test_the_rc_token_is_never_sent_to_another_address(
    pack: Path, recorder: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    found, url = recorder
    write_rc(pack, "http://127.0.0.1:4000")
    monkeypatch.setenv("KINDGI_API_URL", url)
    code, _, err = run_main(["projects", "list"], capsys)
    assert code == 1
    assert err == (
        f"Error: Refusing to send the token from {pack / '.kindgirc.json'} to {url} "
        "(KINDGI_API_URL): that token is for http://127.0.0.1:4000. Pass --token=<token> "
        f"(or KINDGI_API_TOKEN) for {url}, or drop KINDGI_API_URL.\n"
    )
    code, _, _ = run_main(["projects", "list", f"--url={url}"], capsys)
    assert code == 1
    assert found.seen == []
    assert run_main(["projects", "list", f"--url={url}", "--token=kgi_bt_theirs"], capsys)[0] == 0
    assert found.seen == [("GET", "/v1/projects", "Bearer kgi_bt_theirs")]


def test_a_stopped_kindgi_dev_says_to_start_it(
    pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    write_rc(pack, url)
    code, _, err = run_main(["projects", "get-default"], capsys)
    assert code == 1
    assert err == (
        f"Error [network]: kindgi dev isn't running at {url} (from .kindgirc.json): "
        "start it with kindgi dev\n"
    )


def test_a_refused_environment_token_says_it_overrode_the_rc(
    pack: Path, recorder: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    found, url = recorder
    write_rc(pack, url)
    found.answers[("GET", "/v1/projects/default")] = (
        401, {"error": {"code": "auth-missing", "message": "The token is not valid."}})  # fmt: skip
    monkeypatch.setenv("KINDGI_API_TOKEN", "kgi_bt_stale")
    code, _, err = run_main(["projects", "get-default"], capsys)
    assert code == 1
    assert err == (
        "Error [auth]: The token is not valid. (the token came from KINDGI_API_TOKEN, which "
        "overrode .kindgirc.json: unset it to use this instance's token)\n"
    )
    assert found.seen == [("GET", "/v1/projects/default", "Bearer kgi_bt_stale")]


@pytest.mark.parametrize(
    "command",
    [["corrections", "list"], ["eval-runs", "list"], ["test-sets", "list"],
     ["judge-classes", "list", "--project=p-1"]],
)  # fmt: skip
def test_table_is_honoured_on_every_list(
    pack: Path, recorder: tuple[Recorder, str], command: list[str]
) -> None:
    write_rc(pack, recorder[1])
    done = CliRunner().invoke(cli, [*command, "--table"])
    assert done.exit_code == 0, done.output
    assert done.output.splitlines() == [
        "ID   RUN ID  STATUS",
        "───  ──────  ──────",
        "c-1  r-1     open",
    ]


def test_ctrl_c_while_waiting_for_an_eval_run_prints_how_to_follow_it(
    pack: Path, recorder: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    found, url = recorder
    write_rc(pack, url)
    found.answers[("POST", "/v1/eval-suites/s/runs")] = (202, {"runId": "er-1"})

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(eval_runs.time, "sleep", interrupted)
    done = CliRunner().invoke(cli, ["eval-runs", "start", "s", "--project=p", "--agent=a",
                                    "--wait"])  # fmt: skip
    assert done.exit_code == 130
    assert (
        done.stderr.strip() == "Stopped waiting. Eval run er-1 goes on: kindgi eval-runs show er-1"
    )


def test_ctrl_c_while_a_run_start_waits_prints_how_to_follow_it(
    pack: Path, recorder: tuple[Recorder, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    found, url = recorder
    write_rc(pack, url)
    found.answers[("POST", "/v1/runs")] = (202, {"id": "r-9", "status": "running"})

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runs.time, "sleep", interrupted)
    done = CliRunner().invoke(cli, ["runs", "start", "--agent=a", '--input={"userMessage": "hi"}'])
    assert done.exit_code == 130
    assert done.stderr.strip() == "Stopped waiting. Run r-9 goes on: kindgi runs get r-9"
    assert [(m, p) for m, p, _ in found.seen] == [("POST", "/v1/runs")]


def test_corrections_add_refuses_an_item_that_is_not_at_its_pointer(
    pack: Path, recorder: tuple[Recorder, str]
) -> None:
    found, url = recorder
    write_rc(pack, url)
    articles = [{"id": "kb-101", "title": "Reset"}, {"id": "kb-102", "title": "Email"}]
    found.answers[("GET", "/v1/runs/r-1")] = (200, {"output": {"output": {"articles": articles}}})
    add = ["corrections", "add", "--run=r-1", "--pointer=/output/articles/1", "--rank=1", "--no"]
    typo = CliRunner().invoke(cli, [*add, "--item=kb-103"])
    assert typo.exit_code == 2
    assert (
        "Error: --pointer=/output/articles/1 is item kb-102 in the run's output, not "
        "--item=kb-103: nothing was corrected"
    ) in typo.stderr
    assert [method for method, _, _ in found.seen] == ["GET"]
    right = CliRunner().invoke(cli, [*add, "--item=kb-102"])
    assert right.exit_code == 0, right.output
    assert ("POST", "/v1/corrections/c-1/items") in [(m, p) for m, p, _ in found.seen]


def test_runs_list_takes_a_trigger(pack: Path, recorder: tuple[Recorder, str]) -> None:
    found, url = recorder
    write_rc(pack, url)
    done = CliRunner().invoke(cli, ["runs", "list", "--trigger=t-1", "--raw"])
    assert done.exit_code == 0, done.output
    assert (found.seen[-1][1], found.queries[-1]) == ("/v1/runs", "triggerId=t-1")
