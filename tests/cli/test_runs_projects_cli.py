"""`kindgi runs start --idempotency-key --dry-run`, `kindgi runs stream` and
`kindgi projects create --org` against a served app, as the real CLI spells them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import Kindgi
from flow_pack import EXAMPLE, PACKAGE, SUGGEST_AND_LOG, InProcessPack, example_index
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.pack import PackIndex
from kindgi_dev.services import catalog
from kindgi_dev.settings import Settings

INPUT = json.dumps({"question": PACKAGE})


@pytest.fixture
def kindgi(tmp_path: Path) -> Iterator[Kindgi]:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    settings = Settings(pack_dir=tmp_path, start_pack=False, watch=False,
                        models_file=EXAMPLE / "dev_models.py")  # fmt: skip
    app = create_app(settings)
    ctx = context_of(app)
    data = example_index()
    with serve_app(app) as url:
        index = PackIndex(
            pack_id=data["packId"], pack_version=data["packVersion"],
            artifact_version=data["artifactVersion"], tools=data["tools"], agents=data["agents"],
            flows=data["flows"], guardrails=[], file_errors=[], path=Path("index.json"),
            warnings=[],
        )  # fmt: skip
        catalog.register(ctx, index)
        ctx.runtime = InProcessPack(data)
        yield Kindgi(url, ctx.identity.token)


def test_a_repeated_idempotency_key_gets_the_same_run_and_starts_no_second(kindgi: Kindgi) -> None:
    start = ("runs", "start", f"--flow={SUGGEST_AND_LOG}", f"--input={INPUT}")
    first = kindgi.json(*start, "--idempotency-key=order-42")
    again = kindgi.json(*start, "--idempotency-key=order-42")
    other = kindgi.json(*start, "--idempotency-key=order-43")
    assert first["id"] == again["id"] != other["id"]
    assert first["status"] == "completed"
    listed = kindgi.json("runs", "list")["data"]
    assert sorted(r["id"] for r in listed) == sorted([first["id"], other["id"]])


def test_a_dry_run_is_marked_and_left_out_of_the_list_unless_asked(kindgi: Kindgi) -> None:
    agent = kindgi.json("agents", "list")["data"][0]["id"]
    question = json.dumps({"userMessage": PACKAGE})
    run = kindgi.json("runs", "start", f"--agent={agent}", f"--input={question}", "--dry-run")
    assert (run["dryRun"], run["status"]) == (True, "completed")
    assert kindgi.json("runs", "list")["data"] == []
    with_dry = kindgi.json("runs", "list", "--include-dry-runs")["data"]
    assert [r["id"] for r in with_dry] == [run["id"]]


def test_runs_stream_prints_one_json_event_per_line_ending_with_the_terminal_one(
    kindgi: Kindgi,
) -> None:
    run = kindgi.json("runs", "start", f"--flow={SUGGEST_AND_LOG}", f"--input={INPUT}")
    result = kindgi("runs", "stream", run["id"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["kind"] for e in events] == ["run.started", "run.step-completed", "run.completed"]
    assert {e["runId"] for e in events} == {run["id"]}
    assert [e["sequence"] for e in events] == sorted(e["sequence"] for e in events)


def test_runs_stream_of_an_unknown_run_says_not_found_and_exits_1(kindgi: Kindgi) -> None:
    result = kindgi("runs", "stream", "run_nope")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error [not-found]: ")


def test_projects_create_with_an_org_is_refused_and_writes_nothing(kindgi: Kindgi) -> None:
    before = kindgi.json("projects", "list")["data"]
    result = kindgi("projects", "create", "--name=Support", "--org=org_elsewhere")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error [not-found]: ")
    assert "org_elsewhere" in result.stderr
    assert kindgi.json("projects", "list")["data"] == before
    made = kindgi.json("projects", "create", "--name=Support")
    assert (made["name"], made["slug"], made.get("orgId")) == ("Support", "support", None)


@pytest.mark.parametrize("run_id", ["?", "#", "%2F", "..", ".", "é x"])
def test_an_id_that_means_something_in_a_url_is_sent_as_itself(kindgi: Kindgi, run_id: str) -> None:
    """Percent-encoded as one segment of the path, the id reaches the API whole: a 404 that
    names it, not a redirect, a parent path or another route."""
    result = kindgi("runs", "get", run_id)
    assert result.exit_code == 1
    assert result.stderr == f"Error [not-found]: No run with id {run_id}.\n"
