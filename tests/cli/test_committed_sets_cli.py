"""`kindgi test-sets export|import` between two served apps, and a try's verdict as the CLI
prints it: the metrics table, the summary line, the JUnit report."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result
from correction_rows import tutorial_corrections
from factories import AGENT, QUESTIONS, register_pack, tutorial_runs
from first_article import first_article_models
from junitparser import Error, Failure, JUnitXml
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.cli import junit
from kindgi_dev.cli.main import cli
from kindgi_dev.domain.test_set_files import digest
from kindgi_dev.settings import Settings
from kindgi_dev.testing import KindgiDev, KindgiDevError

PASSWORD, CHARGED, PACKAGE = QUESTIONS


@dataclass
class Runtime:
    url: str
    token: str


def _runtime(
    folder: Path, stack: ExitStack, *, frozen: bool, fail: bool = False
) -> tuple[Runtime, str]:
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    models = first_article_models(folder, fail=fail)
    app = create_app(Settings(pack_dir=folder, start_pack=False, watch=False, models_file=models))
    ctx = context_of(app)
    register_pack(ctx, ("0.1.0", "0.2.0"))
    runtime = Runtime(stack.enter_context(serve_app(app)), ctx.identity.token)
    if not frozen:
        return runtime, ""
    runs = tutorial_runs(ctx)
    tutorial_corrections(ctx, runs)
    with httpx.Client(
        base_url=runtime.url, headers={"Authorization": f"Bearer {ctx.identity.token}"}
    ) as http:
        if fail:  # the password case also says what the answer should have said
            answer = {"answer": {"verdict": "wrong", "shouldSay": "a reset link"}}
            mine = http.get("/v1/corrections", params={"runId": runs[PASSWORD]}).json()["data"]
            assert http.patch(f"/v1/corrections/{mine[0]['id']}", json=answer).is_success
        found = http.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
    return runtime, f"{found['testSetId']}@{found['version']}"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Runtime, Runtime, str]]:
    """`there`: the tutorial corrected and frozen; `here`: a fresh instance."""
    root = tmp_path_factory.mktemp("committed")
    with ExitStack() as stack:
        there, frozen = _runtime(root / "there", stack, frozen=True)
        here, _ = _runtime(root / "here", stack, frozen=False)
        yield there, here, frozen


def kindgi(runtime: Runtime, *args: str) -> Result:
    env = {"KINDGI_API_URL": runtime.url, "KINDGI_API_TOKEN": runtime.token}
    return CliRunner().invoke(cli, list(args), env=env)


def test_export_writes_the_same_file_twice_and_import_stores_it(
    pair: tuple[Runtime, Runtime, str], tmp_path: Path
) -> None:
    there, here, frozen = pair
    first, second = tmp_path / "cases" / "picks.json", tmp_path / "again.json"
    for target in (first, second):
        done = kindgi(there, "test-sets", "export", frozen, "-o", str(target))
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["bytes"] == target.stat().st_size
    assert first.read_bytes() == second.read_bytes()
    piped = kindgi(there, "test-sets", "export", frozen)
    assert piped.stdout_bytes == first.read_bytes()

    stored = kindgi(here, "test-sets", "import", str(first))
    assert stored.exit_code == 0, stored.output
    answer = json.loads(stored.stdout)
    assert (answer["imported"], answer["caseCount"]) == (True, 3)
    assert answer["source"]["url"] == f"file:{first.as_posix()}"
    again = kindgi(here, "test-sets", "import", str(first))
    assert json.loads(again.stdout)["imported"] is False

    tampered = tmp_path / "tampered.json"
    tampered.write_text(first.read_text().replace('"verdict":"wrong"', '"verdict":"right"', 1))
    refused = kindgi(here, "test-sets", "import", str(tampered))
    assert refused.exit_code == 1
    assert "Error [invalid-request]: sha256: does not match the file's cases" in refused.stderr


def test_export_to_a_folder_that_is_a_file_is_an_error_line(
    pair: tuple[Runtime, Runtime, str], tmp_path: Path
) -> None:
    """It printed FileExistsError's traceback."""
    there, _, frozen = pair
    (tmp_path / "afile").write_text("")
    target = tmp_path / "afile" / "x.json"
    done = kindgi(there, "test-sets", "export", frozen, "-o", str(target))
    assert (done.exit_code, type(done.exception)) == (1, SystemExit), done.output
    assert done.stderr == (
        f"Error [invalid-request]: --output: can't write {target}: File exists: "
        f"{tmp_path / 'afile'}\n"
    )
    assert (tmp_path / "afile").read_text() == ""


@pytest.mark.parametrize("answer", ["unknown version", "no server"])
def test_an_export_that_fails_makes_no_folder(
    pair: tuple[Runtime, Runtime, str], tmp_path: Path, answer: str
) -> None:
    """`-o new/dir/x.json` made `new/dir/` before asking, so a failed export left it."""
    there, _, frozen = pair
    reference = frozen.replace("@1.0.0", "@9.0.0")
    if answer == "no server":
        there, reference = Runtime("http://127.0.0.1:1", there.token), frozen
    done = kindgi(there, "test-sets", "export", reference, "-o", str(tmp_path / "new/dir/x.json"))
    assert (done.exit_code, type(done.exception)) == (1, SystemExit), done.output
    assert done.stderr.startswith("Error [not-found]" if answer == "unknown version" else
                                  "Error [network]")  # fmt: skip
    assert not (tmp_path / "new").exists()


def test_a_wait_prints_the_verdict_table_and_its_summary_line(
    pair: tuple[Runtime, Runtime, str],
) -> None:
    there, _, _ = pair
    done = kindgi(there, "agents", "test-set", "run", f"--agent={AGENT}",
                  "--agent-version=0.2.0", "--wait", "--table")  # fmt: skip
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert set(lines[1]) == {"─", " "}
    cells = [re.split(r"\s{2,}", line) for line in lines[:1] + lines[2:]]
    assert cells == [
        ["METRIC", "BASELINE", "CANDIDATE", "DELTA", "95% INTERVAL", "WINS/LOSSES/TIES",
         "VERDICT"],
        ["weightedYesShare", "0.333", "1", "+0.667", "+0.667 to +0.667", "3/0/0", "too few cases"],
        ["judgedCoverage", "0.75", "0.5", "-0.25", "-0.25 to -0.25", "0/3/0", "too few cases"],
        ["weightedPrecisionAtK", "0.333", "1", "+0.667", "+0.667 to +0.667", "3/0/0",
         "too few cases"],
        ["caseCoverage", "0.75", "0.5", "-0.25", "-0.25 to -0.25", "0/3/0", "too few cases"],
        ["passRate", "–", "–", "–", "–", "0/0/0", "too few cases"],
    ]  # fmt: skip
    assert done.stderr.splitlines()[-1] == (
        "weightedYesShare 0.333 → 1 (+0.667, 95% interval +0.667 to +0.667): too few cases to "
        "tell a change from noise; 3 cases: 3 better, 0 worse, 0 the same, 0 errored"
    )


def test_junit_has_a_testcase_per_case_with_what_differed(tmp_path: Path) -> None:
    # 0.2.0 answers the first article of each case, its answer misses "a reset link" on
    # the password case, and its model errors on the package case.
    with ExitStack() as stack:
        runtime, frozen = _runtime(tmp_path / "failing", stack, frozen=True, fail=True)
        report = tmp_path / "reports" / "cases.xml"
        done = kindgi(runtime, "agents", "test-set", "run", f"--agent={AGENT}",
                      "--agent-version=0.2.0", f"--junit={report}")  # fmt: skip
        assert done.exit_code == 0, done.output
    run = json.loads(done.stdout)
    names = {c["caseId"]: c for c in run["result"]["perCase"]}
    parsed = JUnitXml.fromfile(str(report))
    (suite,) = list(parsed)
    cases = list(suite)
    assert sorted(c.name for c in cases) == sorted(names)
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 1, 1, 0)
    outcomes = {c.name: [type(r).__name__ for r in c.result] for c in cases}
    assert sorted(map(tuple, outcomes.values())) == [(), ("Error",), ("Failure",)]
    failure = next(r for c in cases for r in c.result if isinstance(r, Failure))
    assert "answer, repetition 1: answer" in failure.text
    assert failure.text.splitlines()[0].startswith("kept: kb-101 (rank 0 → 0)")
    error = next(r for c in cases for r in c.result if isinstance(r, Error))
    assert "HTTP 503" in error.message
    assert frozen.endswith("@1.0.0")


def test_junit_of_a_run_that_did_not_complete_has_an_error_of_its_own() -> None:
    """A cancelled run lists only the cases it finished, each of which may pass: the run's
    own `<error>` keeps the report from reading as a pass."""
    case = {"caseId": "c-1", "passedAll": True}
    run = {"runId": "r-1", "suiteId": "acme.picks", "suiteVersion": "1.0.0",
           "status": "cancelled", "progress": {"casesDone": 1, "cases": 3},
           "result": {"perCase": [case], "summary": {"candidate": {"agentId": AGENT}}}}  # fmt: skip
    suite = junit.report(run).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "1")
    errors = [e.get("message") for e in suite.iter("error")]
    assert errors == ["The eval run ended cancelled with 1 of 3 cases finished."]
    completed = junit.report({**run, "status": "completed"}).find("testsuite")
    assert completed is not None and (completed.get("tests"), completed.get("errors")) == ("1", "0")


def test_the_fixture_refuses_a_file_below_the_highest_version_on_every_use(
    pair: tuple[Runtime, Runtime, str], tmp_path: Path
) -> None:
    """`kindgi_dev.try_version(cases=…)` replays the highest version of an imported set, so a
    committed file of a lower version is refused on its next use too, after a higher one
    was imported: it ran on the higher version's cases, with no word of it."""
    there, _, frozen = pair
    here, _ = _runtime(tmp_path / "here", stack := ExitStack(), frozen=False)
    with stack:
        pack = tmp_path / "pack"
        (pack / "cases").mkdir(parents=True)
        (pack / ".kindgirc.json").write_text(json.dumps({"apiUrl": here.url, "token": here.token}))
        exported = kindgi(there, "test-sets", "export", frozen, "-o", str(pack / "cases/v1.json"))
        assert exported.exit_code == 0, exported.output
        later = json.loads((pack / "cases/v1.json").read_text())
        later.update(version="9.0.0", cases=later["cases"][:1], caseCount=1)
        later["sha256"] = digest(later["cases"])
        (pack / "cases/v9.json").write_text(json.dumps(later))
        dev = KindgiDev(None, pack, tmp_path / "log")  # type: ignore[arg-type]  # no process
        ran = [dev.try_version(AGENT, "0.2.0", cases=f"cases/{n}.json") for n in ("v1", "v9")]
        assert [len(r.cases) for r in ran] == [3, 1]
        with pytest.raises(KindgiDevError, match=r"cases/v1\.json is version 1\.0\.0 .* 9\.0\.0"):
            dev.try_version(AGENT, "0.2.0", cases="cases/v1.json")
