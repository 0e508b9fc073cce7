"""A frozen version exported as a file and imported into another instance: the same bytes
every time, stored like a pull, refused when tampered with, 409 on other content."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, closing
from typing import Any

import pytest
from correction_rows import tutorial_corrections
from factories import AGENT, served, tutorial_runs
from first_article import first_article_models
from starlette.testclient import TestClient
from test_eval_runs import finish

from kindgi_dev.domain.test_set_files import case_text, digest
from kindgi_dev.services.context import Context


def every_row(ctx: Context) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, read on a read-only connection of its own."""
    path = ctx.settings.database_path
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {name: db.execute(f'SELECT * FROM "{name}"').fetchall() for name in names}


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A: the tutorial's runs corrected and frozen as 1.0.0. B: a fresh instance."""
    with ExitStack() as stack:
        a = stack.enter_context(served(tmp_path_factory.mktemp("a")))
        models = first_article_models(tmp_path_factory.mktemp("models"), fail=False)
        b = stack.enter_context(served(tmp_path_factory.mktemp("b"), ("0.1.0", "0.2.0"), models))
        tutorial_corrections(a[1], tutorial_runs(a[1]))
        frozen = a[0].post(f"/v1/agents/{AGENT}/test-set/freeze").json()
        yield a, b, frozen["testSetId"]


def exported(client: TestClient, test_set_id: str, version: str = "1.0.0") -> bytes:
    answer = client.get(f"/v1/test-sets/{test_set_id}/versions/{version}/export")
    assert answer.status_code == 200, answer.text
    return answer.content


def test_a_version_exports_the_same_bytes_every_time(instances: Any) -> None:
    (a, _), _, test_set_id = instances
    first, again = exported(a, test_set_id), exported(a, test_set_id)
    assert first == again
    text = first.decode()
    data = json.loads(text)
    lines = text.splitlines()
    assert len(lines) == 3 + 2 and text.endswith("\n")
    assert [json.loads(line.rstrip(",")) for line in lines[1:4]] == data["cases"]
    assert text.replace("\n", "") == case_text(data)
    assert lines[0] == (
        '{"agents":[{"id":"acme-ops.article-picker","versions":["0.1.0"]}],"caseCount":3,"cases":['
    )
    assert data["sha256"] == digest(data["cases"])
    assert (data["id"], data["version"], data["kind"], data["flows"]) == (
        test_set_id, "1.0.0", "corrections", [])  # fmt: skip
    cases = a.get(f"/v1/test-sets/{test_set_id}/versions/1.0.0/cases").json()["data"]
    assert data["cases"] == cases


def test_an_import_is_stored_read_only_and_replays_with_the_spec_numbers(instances: Any) -> None:
    (a, _), (b, ctx_b), test_set_id = instances
    file = json.loads(exported(a, test_set_id))
    stored = b.post("/v1/test-sets/import?source=tests/cases/picks.json", json=file)
    assert stored.status_code == 201, stored.text
    assert stored.json()["imported"] is True
    assert stored.json()["source"]["url"] == "file:tests/cases/picks.json"
    before = every_row(ctx_b)
    again = b.post("/v1/test-sets/import", json=file)
    assert (again.status_code, again.json()["imported"]) == (200, False)
    assert every_row(ctx_b) == before
    entry = b.get(f"/v1/test-sets/{test_set_id}").json()
    assert entry["description"] == "Imported from file:tests/cases/picks.json."
    assert exported(b, test_set_id) == exported(a, test_set_id)

    project = b.get("/v1/projects/default").json()["id"]
    body = {"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}}
    started = b.post(f"/v1/eval-suites/{test_set_id}/runs", json=body)
    assert started.status_code == 201, started.text
    metrics = finish(b, started.json()["runId"])["result"]["summary"]["metrics"]
    assert metrics["weightedYesShare"]["baseline"] == pytest.approx(1 / 3)
    assert metrics["weightedYesShare"]["candidate"] == 1
    assert (metrics["judgedCoverage"]["baseline"], metrics["judgedCoverage"]["candidate"]) == (
        0.75, 0.5)  # fmt: skip


def test_a_tampered_file_is_refused_and_writes_nothing(instances: Any) -> None:
    (a, _), (b, ctx_b), test_set_id = instances
    text = exported(a, test_set_id).decode()
    tampered = json.loads(text.replace('"verdict":"wrong"', '"verdict":"right"', 1))
    before = every_row(ctx_b)
    answer = b.post("/v1/test-sets/import", json=tampered)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("digest-mismatch", "sha256")
    assert every_row(ctx_b) == before


def test_other_content_under_the_same_version_is_409_and_writes_nothing(instances: Any) -> None:
    (a, ctx_a), (b, ctx_b), test_set_id = instances
    file = json.loads(exported(a, test_set_id))
    assert b.post("/v1/test-sets/import", json=file).status_code in (200, 201)
    fewer = {**file, "cases": file["cases"][:2], "caseCount": 2}
    fewer["sha256"] = digest(fewer["cases"])
    before = every_row(ctx_b)
    answer = b.post("/v1/test-sets/import", json=fewer)
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "version-already-exists")
    assert every_row(ctx_b) == before
    # Where it was frozen, the version is the instance's own: nothing is imported over it.
    before_a = every_row(ctx_a)
    own = a.post("/v1/test-sets/import", json=file)
    assert (own.status_code, own.json()["error"]["code"]) == (409, "version-already-exists")
    assert every_row(ctx_a) == before_a


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "other/1"}, "format"),
        ({"kind": "accuracy"}, "kind"),
        ({"version": "one"}, "version"),
        ({"id": "has space"}, "id"),
        ({"caseCount": 4}, "caseCount"),
        ({"sha256": None}, "sha256"),
        ({"cases": [1, 2]}, "cases/0"),
        ({"extra": True}, "extra"),
    ],
)
def test_a_file_that_is_not_one_is_400_naming_its_field(
    instances: Any, change: dict[str, Any], field: str
) -> None:
    (a, _), (b, ctx_b), test_set_id = instances
    file = {**json.loads(exported(a, test_set_id)), **change}
    before = every_row(ctx_b)
    answer = b.post("/v1/test-sets/import", json=file)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["details"]["field"] == field
    assert every_row(ctx_b) == before


def _emptied(case: dict[str, Any]) -> None:
    case.clear()


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        pytest.param(lambda c: c.pop("id"), "cases/0/id", "is required", id="no id"),
        pytest.param(lambda c: c.pop("runId"), "cases/0/runId", "is required", id="no runId"),
        pytest.param(
            lambda c: c["expect"]["items"][0].pop("key"),
            "cases/0/expect/items/0/key",
            "is required",
            id="an item without its key",
        ),
        pytest.param(
            lambda c: c["expect"]["items"][0].update(verdict="maybe"),
            "cases/0/expect/items/0/verdict",
            "must be one of right, wrong",
            id="a verdict neither right nor wrong",
        ),
        pytest.param(
            lambda c: c["expect"].update(items="x"),
            "cases/0/expect/items",
            "must be a list of objects",
            id="items not a list",
        ),
        pytest.param(
            lambda c: c.update(run={}), "cases/0/run/agentId", "is required", id="a run of nothing"
        ),
        pytest.param(
            lambda c: c["run"].update(toolCalls="x"),
            "cases/0/run/toolCalls",
            "must be a list of objects",
            id="toolCalls not a list",
        ),
        pytest.param(_emptied, "cases/0", "must be a frozen case", id="an empty case"),
    ],
)
def test_a_signed_file_whose_case_no_replay_reads_is_400_naming_it(
    instances: Any, change: Any, field: str, reason: str
) -> None:
    """Re-signed, so the digest holds: the case's own shape is what is refused, before a run
    could start on it (which answered 500, or skipped or miscounted the case)."""
    (a, _), (b, ctx_b), test_set_id = instances
    file = json.loads(exported(a, test_set_id))
    change(file["cases"][0])
    file["sha256"] = digest(file["cases"])
    before = every_row(ctx_b)
    answer = b.post("/v1/test-sets/import", json=file)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("validation-failed", field)
    assert error["details"]["reason"].startswith(reason)
    assert every_row(ctx_b) == before


def test_a_signed_file_with_two_cases_of_one_id_is_400_naming_the_second(instances: Any) -> None:
    """Imported, a run on it listed the id twice in its result (and JUnit two testcases of
    one name)."""
    (a, _), (b, ctx_b), test_set_id = instances
    file = json.loads(exported(a, test_set_id))
    first = file["cases"][0]["id"]
    file["cases"][2]["id"] = first
    file["sha256"] = digest(file["cases"])
    before = every_row(ctx_b)
    answer = b.post("/v1/test-sets/import", json=file)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("validation-failed", "cases/2/id")
    assert error["details"]["reason"] == f"duplicate: an earlier case is {first}"
    assert every_row(ctx_b) == before


def test_exporting_an_unknown_version_is_404(instances: Any) -> None:
    (a, _), _, test_set_id = instances
    answer = a.get(f"/v1/test-sets/{test_set_id}/versions/9.0.0/export")
    assert (answer.status_code, answer.json()["error"]["code"]) == (
        404, "test-set-version-not-found")  # fmt: skip
    answer = a.get("/v1/test-sets/nobody.picks/versions/1.0.0/export")
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "test-set-not-found")


def test_the_export_names_its_file(instances: Any) -> None:
    (a, _), _, test_set_id = instances
    answer = a.get(f"/v1/test-sets/{test_set_id}/versions/1.0.0/export")
    disposition = answer.headers["content-disposition"]
    assert disposition == f'attachment; filename="{test_set_id}-1.0.0.json"'


def test_a_file_never_lands_on_a_test_set_made_here_whatever_its_version(instances: Any) -> None:
    """A's own frozen set exported and imported back as 2.0.0: it was 201, and A's 1.0.0
    then answered 404 (its reads found the imported version first) while a later freeze
    made a second 2.0.0; now it is 409 and writes nothing, and A's own version reads on."""
    (a, ctx_a), _, test_set_id = instances
    later = {**json.loads(exported(a, test_set_id)), "version": "2.0.0"}
    before = every_row(ctx_a)
    answer = a.post("/v1/test-sets/import", json=later)
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "version-already-exists")
    assert "was made here" in answer.json()["error"]["message"]
    assert every_row(ctx_a) == before
    versions = a.get(f"/v1/test-sets/{test_set_id}/versions").json()["data"]
    assert [v["version"] for v in versions] == ["1.0.0"]
    assert a.get(f"/v1/test-sets/{test_set_id}/versions/1.0.0/cases").status_code == 200
