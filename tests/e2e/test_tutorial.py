"""The spec's whole tutorial against the real `kindgi dev`, through our CLI and the official client.

Three runs of the article picker 0.1.0, corrected as the spec does, test cases built,
0.2.0 saved while kindgi dev runs, then 0.2.0 tried on the cases: the spec's numbers.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from devserver import KINDGI, DevServer, clean_env, kindgi_json
from examples_committed import CONCISE as NEW_INSTRUCTIONS
from examples_committed import QUESTIONS
from kindgi.client import Kindgi, NotFoundError, comparison_of

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

AGENT = "acme-ops.article-picker"


def save_version(pack: Path, version: str, instructions: str | None = None) -> None:
    """Edit the agent file the way a developer saves it."""
    path = pack / "agents" / "article_picker.py"
    text = path.read_text()
    text = text.replace('version="0.1.0"', f'version="{version}"')
    if instructions is not None:
        text = re.sub(
            r"instructions=\(.*?\),\n",
            f"instructions={instructions!r},\n",
            text,
            count=1,
            flags=re.DOTALL,
        )
    path.write_text(text)


def wait_for(condition: Any, timeout: float = 30.0) -> float:
    """Poll until true; the seconds it took. How fast is the benchmarks' business, not a test's."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if condition():
            return time.monotonic() - began
        time.sleep(0.05)
    raise AssertionError(f"not true within {timeout} s")


def test_tutorial(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    run_ids = {}
    for question, expected in QUESTIONS.items():
        run = client.runs.start(agent=AGENT, input={"userMessage": question})
        assert run.status == "completed"
        assert [a["id"] for a in run.output["output"]["articles"]] == expected
        run_ids[question] = str(run.id)
    got = client.runs.get(run_ids["I forgot my password and can't sign in."])
    appended = got.output["appended"]
    assert appended[1]["toolCalls"][0]["toolId"] == "acme-ops.search-articles"
    assert appended[1]["toolCalls"][0]["arguments"] == {
        "query": "I forgot my password and can't sign in."
    }
    assert [a["id"] for a in appended[2]["content"]["articles"]][:3] == QUESTIONS[
        "I forgot my password and can't sign in."
    ]
    assert isinstance(appended[3]["content"], str) and appended[3]["content"]
    assert got.agent.version == "0.1.0"

    for question, run_id in run_ids.items():
        for rank, article in enumerate(QUESTIONS[question]):
            kindgi_json(
                server,
                "corrections",
                "add",
                f"--run={run_id}",
                f"--item={article}",
                f"--pointer=/output/articles/{rank}",
                f"--rank={rank}",
                "--yes" if rank == 0 else "--no",
            )
    project = kindgi_json(server, "projects", "get-default")["id"]
    build = ("eval-suites", "from-judgments", "acme.article-picks", "--suite-version=1.0.0",
             f"--project={project}", f"--agent={AGENT}")  # fmt: skip
    built = kindgi_json(server, *build)
    assert built == {"suiteId": "acme.article-picks", "version": "1.0.0", "kind": "judged",
                     "caseCount": 3, "truncated": False}  # fmt: skip
    check_test_cases(server, build)

    save_version(server.pack, "0.2.0", NEW_INSTRUCTIONS)
    wait_for(lambda: [v.version for v in client.agents.list_versions(AGENT).data]
                    == ["0.1.0", "0.2.0"])  # fmt: skip
    answer = client.runs.start(agent=AGENT, input={"userMessage": "I forgot my password and "
                                                   "can't sign in."})  # fmt: skip
    assert [a["id"] for a in answer.output["output"]["articles"]] == ["kb-101"]

    finished = kindgi_json(
        server,
        "eval-runs",
        "start",
        "acme.article-picks",
        f"--project={project}",
        f"--agent={AGENT}",
        "--agent-version=0.2.0",
        "--wait",
    )
    assert finished["status"] == "completed"
    check_scores(finished["result"])

    started = client.eval_runs.start(
        "acme.article-picks", project_id=project, agent_ref={"agent_id": AGENT, "version": "0.2.0"}
    )
    run = client.eval_runs.get(str(started.run_id))
    while run.status in ("pending", "running"):
        time.sleep(0.2)
        run = client.eval_runs.get(str(started.run_id))
    comparison = comparison_of(run)
    assert comparison is not None
    metrics = comparison.summary.metrics
    assert metrics.weighted_yes_share.baseline == pytest.approx(1 / 3)
    assert metrics.weighted_yes_share.candidate == 1
    assert metrics.judged_coverage.baseline == 0.75
    assert metrics.judged_coverage.candidate == 0.5
    assert metrics.weighted_precision_at_k.candidate == 1

    replays = kindgi_json(server, "runs", "list", f"--eval-run={started.run_id}")
    assert len(replays["data"]) == 3
    assert all(r["replayOf"] in run_ids.values() for r in replays["data"])
    assert len(kindgi_json(server, "runs", "list")["data"]) == 4
    assert (
        client.runs.get(run_ids["My package hasn't arrived yet. Where is it?"]).agent.version
        == "0.1.0"
    )


def check_test_cases(server: DevServer, build: tuple[str, ...]) -> None:
    """The suite's cases and the agent's test set read as the spec prints them."""
    cases = kindgi_json(
        server, "eval-suites", "cases", "acme.article-picks", "--suite-version=1.0.0"
    )
    counts = {c["input"]: [f"{i['key']} {i['yes']} yes, {i['no']} no" for i in c["items"]]
              for c in cases["data"]}  # fmt: skip
    assert counts == {
        question: [f"{a} 1 yes, 0 no" if n == 0 else f"{a} 0 yes, 1 no"
                   for n, a in enumerate(articles)]
        for question, articles in QUESTIONS.items()
    }  # fmt: skip
    again = subprocess.run([KINDGI, *build], cwd=server.pack, env=clean_env(),
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 1
    assert 'Eval suite "acme.article-picks" version "1.0.0" is already registered.' in again.stderr
    test_set = kindgi_json(server, "agents", "test-set", AGENT)
    counted = test_set["testSet"]["cases"]
    assert (counted["active"], counted["retired"]) == (3, 0)
    expected = [[f"{i['key']} {i['verdict']}" for i in c["expect"]["items"]]
                for c in test_set["cases"]["data"]]  # fmt: skip
    assert expected == [
        ["kb-301 right", "kb-303 wrong", "kb-201 wrong"],
        ["kb-201 right", "kb-203 wrong", "kb-202 wrong"],
        ["kb-101 right", "kb-102 wrong", "kb-103 wrong"],
    ]


def test_corrections_through_cli_and_client_read_back_the_same(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    by_cli: dict[str, str] = {}
    by_client: dict[str, str] = {}
    for question, articles in QUESTIONS.items():
        for into in (by_cli, by_client):
            into[question] = str(client.runs.start(agent=AGENT, input={"userMessage": question}).id)
        for rank, article in enumerate(articles):
            verdict = "--yes" if rank == 0 else "--no"
            kindgi_json(
                server,
                "corrections",
                "add",
                f"--run={by_cli[question]}",
                f"--item={article}",
                f"--pointer=/output/articles/{rank}",
                f"--rank={rank}",
                verdict,
                f"--reason=reason {rank}",
            )
            client.judgments.create(
                run_id=by_client[question], verdict="yes" if rank == 0 else "no",
                reason=f"reason {rank}",
                item={"key": article, "pointer": f"/output/articles/{rank}", "rank": rank},
            )  # fmt: skip
    for run_ids in (by_cli, by_client):
        for question, run_id in run_ids.items():
            judged = client.judgments.list(run_id=run_id).data
            from_judgments = sorted((j.item.key, j.item.pointer, j.item.rank,
                                     "right" if j.verdict == "yes" else "wrong", j.reason)
                                    for j in judged)  # fmt: skip
            correction = kindgi_json(server, "corrections", "list", f"--run={run_id}")["data"][0]
            from_corrections = sorted((i["key"], i["pointer"], i["rank"], i["verdict"],
                                       i.get("reason")) for i in correction["items"])  # fmt: skip
            assert from_judgments == from_corrections
            assert from_judgments == sorted(
                (a, f"/output/articles/{n}", n, "right" if n == 0 else "wrong", f"reason {n}")
                for n, a in enumerate(QUESTIONS[question])
            )


def check_scores(result: dict[str, Any]) -> None:
    """The spec's numbers for 0.2.0 on the tutorial's three cases."""
    metrics = result["summary"]["metrics"]
    assert metrics["weightedYesShare"]["baseline"] == pytest.approx(0.3333333333333333)
    assert metrics["weightedYesShare"]["candidate"] == 1
    assert metrics["weightedYesShare"]["n"] == 3
    assert metrics["judgedCoverage"]["baseline"] == 0.75
    assert metrics["judgedCoverage"]["candidate"] == 0.5
    assert metrics["weightedPrecisionAtK"]["baseline"] == pytest.approx(0.3333333333333333)
    assert metrics["weightedPrecisionAtK"]["candidate"] == 1
    assert metrics["weightedPrecisionAtK"]["k"] == 10
    assert result["summary"]["diverged"] == 1
    password = next(
        c
        for c in result["perCase"]
        if c["changes"]["kept"] and c["changes"]["kept"][0]["key"] == "kb-101"
    )
    assert password["changes"]["kept"] == [{"key": "kb-101", "rankBefore": 0, "rank": 0}]
    assert password["changes"]["dropped"] == [
        {"key": "kb-102", "rankBefore": 1},
        {"key": "kb-103", "rankBefore": 2},
    ]
    assert password["changes"]["new"] == [{"key": "answer", "pointer": "/appended/3/content"}]
    assert password["diverged"] is True
    assert password["tools"][0]["source"] == "live"


def test_saving_a_syntax_error_keeps_the_last_version_serving(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    save_version(server.pack, "0.2.0", NEW_INSTRUCTIONS)
    wait_for(lambda: len(client.agents.list_versions(AGENT).data) == 2)
    path = server.pack / "agents" / "article_picker.py"
    path.write_text(path.read_text() + "\ndef broken(:\n")
    lines = len(path.read_text().splitlines())
    wait_for(lambda: "SyntaxError" in server.output())
    assert f"agents/article_picker.py:{lines}" in server.output()
    run = client.runs.start(agent=AGENT, input={"userMessage": "I forgot my password and "
                                                "can't sign in."})  # fmt: skip
    assert run.agent.version == "0.2.0"
    assert [a["id"] for a in run.output["output"]["articles"]] == ["kb-101"]


def test_bad_input_gets_the_contract_errors(server: DevServer) -> None:
    client = Kindgi(base_url=server.url, token=server.token)
    with pytest.raises(NotFoundError) as missing:
        client.runs.start(agent="acme-ops.nobody", input={"userMessage": "hi"})
    assert missing.value.server_code == "agent-not-found"
    with server.client() as http:
        answer = http.post("/v1/runs", json={"agent": AGENT, "input": {"question": "hi"}})
    assert answer.status_code == 400
    assert answer.json()["error"]["details"]["field"] == "input/userMessage"
