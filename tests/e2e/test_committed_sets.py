"""Issue 25 end to end: the tutorial's corrections exported as a file, compared, imported into
an instance the plugin started and replayed there; and a new pack's CI gating on the
cases file `kindgi init` ships."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer, clean_env, copy_example, kindgi, start

from kindgi_dev.domain.test_set_files import digest
from kindgi_dev.testing import KindgiDevError
from kindgi_dev.testing import start as plugin_start

pytestmark = pytest.mark.slow

AGENT = "acme-ops.article-picker"
QUESTIONS = [
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
]
CONCISE = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the "
    "articles that answer it, most relevant first: one is often enough."
)


def correct_tutorial(server: DevServer) -> str:
    """The tutorial's three runs, the first article right and the others wrong, frozen."""
    with server.client() as http:
        for question in QUESTIONS:
            run = http.post("/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}})
            picked = [a["id"] for a in run.json()["output"]["output"]["articles"]]
            items = [{"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
                      "verdict": "right" if rank == 0 else "wrong"}
                     for rank, a in enumerate(picked)]  # fmt: skip
            body = {"runId": run.json()["id"], "items": items}
            assert http.post("/v1/corrections", json=body).status_code == 201
        frozen = http.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
    return f"{frozen['testSetId']}@{frozen['version']}"


def concise(pack: Path) -> str:
    """The article picker's file at 0.2.0 with the tutorial's concise instructions."""
    text = (pack / "agents" / "article_picker.py").read_text()
    text = text.replace('version="0.1.0"', 'version="0.2.0"')
    start_at = text.index("instructions=(")
    end_at = text.index("),\n", start_at) + 3
    return text[:start_at] + f"instructions={CONCISE!r},\n" + text[end_at:]


def test_corrections_exported_committed_and_replayed_in_ci(tmp_path: Path) -> None:
    server = start(copy_example(tmp_path / "laptop"), timeout=90)
    try:
        reference = correct_tutorial(server)
        repo = tmp_path / "repo" / "tests" / "cases"
        for name in ("article-picks-1.0.0.json", "again.json"):
            done = kindgi(
                server.pack, "test-sets", "export", reference, "-o", str(repo / name), code=None
            )
            assert done.returncode == 0, done.stderr
    finally:
        server.stop()
    first, again = repo / "article-picks-1.0.0.json", repo / "again.json"
    compared = subprocess.run(["git", "diff", "--no-index", "--exit-code", str(first),
                               str(again)], capture_output=True, text=True)  # fmt: skip
    assert (compared.returncode, compared.stdout) == (0, "")
    file = json.loads(first.read_text())

    ci = plugin_start(copy_example(tmp_path / "ci-pack"), tmp_path / "ci")
    try:
        ci.save("agents/article_picker.py", concise(ci.pack))
        result = ci.try_version(AGENT, "0.2.0", cases=first)
        assert result.status == "completed"
        share, coverage = result.metrics["weightedYesShare"], result.metrics["judgedCoverage"]
        assert (share.baseline, share.candidate) == (pytest.approx(1 / 3), 1)
        assert (coverage.baseline, coverage.candidate) == (0.75, 0.5)
        assert (share.wins, share.losses, share.ties) == (3, 0, 0)
        assert result.interval("weightedYesShare") is not None
        assert result.significant("weightedYesShare") is False  # three cases: too few
        check_refusals(ci.pack, file, tmp_path)
    finally:
        ci.stop()


def check_refusals(pack: Path, file: dict[str, Any], tmp_path: Path) -> None:
    """Against the plugin's instance: a repeat is a no-op, a tampered file and other content
    under the same version are refused, and none of them writes anything."""

    def imported(data: dict[str, Any], name: str) -> subprocess.CompletedProcess[str]:
        path = tmp_path / name
        path.write_text(json.dumps(data))
        return kindgi(pack, "test-sets", "import", str(path), code=None)

    listed = kindgi(pack, "test-sets", "versions", file["id"], code=None)
    repeat = imported(file, "repeat.json")
    assert repeat.returncode == 0 and json.loads(repeat.stdout)["imported"] is False
    tampered = json.loads(json.dumps(file).replace('"verdict": "wrong"', '"verdict": "right"', 1))
    refused = imported(tampered, "tampered.json")
    assert refused.returncode == 1 and "sha256: does not match the file's cases" in refused.stderr
    fewer = {**file, "cases": file["cases"][:2], "caseCount": 2}
    fewer["sha256"] = digest(fewer["cases"])
    conflict = imported(fewer, "fewer.json")
    assert conflict.returncode == 1 and "with other content" in conflict.stderr
    assert kindgi(pack, "test-sets", "versions", file["id"], code=None).stdout == listed.stdout
    cases = kindgi(
        pack, "test-sets", "cases", file["id"], "--version=1.0.0", "--limit=100", code=None
    )
    assert json.loads(cases.stdout)["data"] == file["cases"]


def test_a_new_packs_ci_gates_on_the_cases_file_it_ships(tmp_path: Path) -> None:
    made = kindgi(tmp_path, "init", "demo", code=None)
    assert made.returncode == 0, made.stderr
    demo = tmp_path / "demo"
    pytest_run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    passed = subprocess.run(pytest_run, cwd=demo, env=clean_env(), capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert passed.returncode == 0, passed.stdout
    assert passed.stdout.splitlines()[-1].startswith("3 passed")

    models = demo / "dev_models.py"
    models.write_text(models.read_text().replace("else picked[:2]", "else picked[1:3]"))
    failed = subprocess.run([*pytest_run, "tests/test_cases.py"], cwd=demo, env=clean_env(),
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert failed.returncode == 1, failed.stdout
    assert "0.8333333333333334 marked right before, 0.5 now" in failed.stdout


def test_an_older_version_after_a_newer_one_is_refused(tmp_path: Path) -> None:
    made = kindgi(tmp_path, "init", "demo", code=None)
    assert made.returncode == 0, made.stderr
    shipped = tmp_path / "demo" / "tests" / "cases" / "tip-picker-1.0.0.json"
    data = json.loads(shipped.read_text())
    newer = tmp_path / "demo" / "tests" / "cases" / "tip-picker-2.0.0.json"
    newer.write_text(json.dumps({**data, "version": "2.0.0"}))
    dev = plugin_start(tmp_path / "demo", tmp_path / "work")
    try:
        assert dev.import_cases("tests/cases/tip-picker-2.0.0.json") == data["id"]
        with pytest.raises(KindgiDevError, match=r"2\.0\.0 was imported before"):
            dev.import_cases("tests/cases/tip-picker-1.0.0.json")
    finally:
        dev.stop()
