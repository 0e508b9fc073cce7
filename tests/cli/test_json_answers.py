"""The CLI reads the API's answers as JSON and narrows them where a command reads a field:
an answer of the wrong shape is an `Error [server]` line, and a flag of the wrong shape a
usage error, each before anything else is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import run_main
from serving import serve_app
from starlette.applications import Starlette
from starlette.routing import Route
from test_cli_differences import Recorder, write_rc


@pytest.fixture()
def recorder() -> Iterator[tuple[Recorder, str]]:
    found = Recorder()
    app = Starlette(routes=[Route("/{path:path}", found.handle, methods=["GET", "POST"])])
    with serve_app(app) as url:
        yield found, url


def test_an_answer_that_is_no_object_where_one_is_read_is_a_server_error(
    pack: Path, recorder: tuple[Recorder, str], capsys: pytest.CaptureFixture[str]
) -> None:
    found, url = recorder
    write_rc(pack, url)
    found.answers[("POST", "/v1/projects")] = (201, ["not", "a", "project"])
    code, out, err = run_main(["projects", "create", "--name=Shop"], capsys)
    assert (code, out) == (1, "")
    assert err == "Error [server]: an answer that isn't a JSON object: ['not', 'a', 'project']\n"
    assert [(method, path) for method, path, _ in found.seen] == [("POST", "/v1/projects")]


def test_items_beside_item_must_be_a_list_and_nothing_is_sent(
    pack: Path, recorder: tuple[Recorder, str], capsys: pytest.CaptureFixture[str]
) -> None:
    found, url = recorder
    write_rc(pack, url)
    args = ["agents", "test-set", "add-case", "--agent=picker", "--run=r-1", "--item=a",
            "--pointer=/a", "--yes", '--items={"key": "b"}']  # fmt: skip
    code, out, err = run_main(args, capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "Error: --items with --item must be a JSON list of items",
        "Usage: kindgi agents test-set add-case --help",
    ]
    assert found.seen == []
