"""The `kindgi_dev` pytest plugin, run the way users run it: pytest in a pack's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from examples_committed import example

from kindgi_dev.cli.main import cli

pytest_plugins = ["pytester"]

URLS = """
from pathlib import Path


def test_one(kindgi_dev):
    with open(Path(__file__).with_name("urls.txt"), "a") as urls:
        urls.write(kindgi_dev.url + " " + kindgi_dev.project_id + "\\n")


def test_two(kindgi_dev):
    assert kindgi_dev.client.projects.get_default().id is not None
    with open(Path(__file__).with_name("urls.txt"), "a") as urls:
        urls.write(kindgi_dev.url + " " + kindgi_dev.project_id + "\\n")
"""


EXAMPLE = example("article-picker")

FLOW_TRY = """
from kindgi.client import Kindgi as Official

from kindgi_dev.client import Kindgi as Ours

FLOW = "acme-ops.suggest-articles"
QUESTIONS = [
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
]


def test_a_flow_with_a_tool_at_another_version_scores_better(kindgi_dev):
    assert type(kindgi_dev.client) is Official and type(kindgi_dev.dev_client) is Ours
    for question in QUESTIONS:
        run = kindgi_dev.client.runs.start(flow=FLOW, input={"question": question})
        articles = [a["id"] for a in run.output["output"]["articles"]]
        items = [{"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
                  "verdict": "right" if rank == 0 else "wrong"} for rank, a in enumerate(articles)]
        kindgi_dev.dev_client.corrections.create(run_id=str(run.id), items=items)
    corrections = kindgi_dev.dev_client.corrections.list().data
    assert sorted(len(c.items) for c in corrections) == [2, 2, 2]
    assert kindgi_dev.flow_cases(FLOW, "acme.flow-picks")["caseCount"] == 3

    tools = {"acme-ops.find-articles": "0.2.0"}
    live = kindgi_dev.try_flow_version(FLOW, "0.1.0", suite="acme.flow-picks", tools=tools,
                                       reads="live")
    share = live.metrics["weightedYesShare"]
    assert (live.status, share.baseline, share.candidate, share.n) == ("completed", 0.5, 1, 3)
    assert live.run["result"]["summary"]["candidate"]["versions"] == {"tools": tools}
    recorded = kindgi_dev.try_flow_version(FLOW, "0.1.0", suite="acme.flow-picks", tools=tools)
    share = recorded.metrics["weightedYesShare"]
    assert (share.baseline, share.candidate) == (0.5, 0.5)
"""

TWO_VERSIONS = """
AGENT = "acme-ops.article-picker"
QUESTIONS = [
    "I forgot my password and can't sign in.",
    "I was charged twice for one order. How do I get my money back?",
    "My package hasn't arrived yet. Where is it?",
]
RECORDED = " Answer with the three most relevant articles."
CONCISE = " Answer with only the articles that answer it, most relevant first: one is often enough."
TWO = " Answer with the two most relevant articles."


def save(kindgi_dev, original, version, instructions):
    text = original.replace('version="0.1.0"', f'version="{version}"')
    kindgi_dev.save("agents/article_picker.py", text.replace(RECORDED, instructions))


def test_a_version_against_another(kindgi_dev):
    for question in QUESTIONS:
        run = kindgi_dev.run(AGENT, question)
        for rank, article in enumerate(run["output"]["output"]["articles"]):
            kindgi_dev.correct(run["id"], article["id"], f"/output/articles/{rank}",
                               right=rank == 0, rank=rank)
    original = (kindgi_dev.pack / "agents" / "article_picker.py").read_text()
    save(kindgi_dev, original, "0.2.0", CONCISE)
    save(kindgi_dev, original, "0.3.0", TWO)
    older = kindgi_dev.try_version(AGENT, "0.2.0")
    newer = kindgi_dev.try_version(AGENT, "0.3.0", baseline=f"{AGENT}@0.2.0")
    share = newer.metrics["weightedYesShare"]
    assert (share.baseline, share.candidate) == (older.metrics["weightedYesShare"].candidate, 0.5)
    assert newer.run["result"]["summary"]["baseline"]["version"] == "0.2.0"
    live = kindgi_dev.try_version(AGENT, "0.2.0", baseline="live")
    assert live.run["result"]["summary"]["baseline"]["version"] == "0.3.0"
    try:
        kindgi_dev.try_version(AGENT, "0.2.0", baseline="0.3.0")
    except Exception as error:
        assert "got '0.3.0'" in str(error)
    else:
        raise AssertionError("a baseline without an agent was sent")
"""

PROMOTION_CHECK = """
AGENT = "acme-ops.article-picker"
QUESTION = "I was charged twice for one order. How do I get my money back?"


def test_check_promotion_says_what_the_gate_would(kindgi_dev):
    run = kindgi_dev.run(AGENT, QUESTION)
    for rank, article in enumerate(a["id"] for a in run["output"]["output"]["articles"]):
        kindgi_dev.correct(run["id"], article, f"/output/articles/{rank}", right=rank == 0,
                           rank=rank)
    scope = {"kind": "project", "projectId": kindgi_dev.project_id}
    kindgi_dev.client.agents.promotions.create(AGENT, {"version": "0.1.0", "scope": scope})
    spec = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}]}
    kindgi_dev.client.gate_policies.publish({"id": "acme.prod", "version": "1.0.0",
                                             "agentId": AGENT, "scope": scope, "spec": spec})
    path = kindgi_dev.pack / "agents" / "article_picker.py"
    text = path.read_text().replace('version="0.1.0"', 'version="0.2.0"').replace(
        "Answer with the three most relevant articles.",
        "Answer with only the articles that answer it.")
    kindgi_dev.save("agents/article_picker.py", text)
    tried = kindgi_dev.try_version(AGENT, "0.2.0")
    check = kindgi_dev.check_promotion(AGENT, "0.2.0", tried)
    assert check.outcome == "would-promote", check
    assert "metric.weightedYesShare.minCandidate" in [c.name for c in check.checks]
    worse = kindgi_dev.check_promotion(AGENT, "0.1.0", tried.run["runId"])
    assert worse.outcome == "gate-failed"
    assert [c.name for c in worse.checks if not c.passed] == ["sameContents"]
"""


def write_pack(where: Path) -> Path:
    done = CliRunner().invoke(cli, ["init", "demo", f"--path={where}", "--force"])
    assert done.exit_code == 0, done.output
    return where


@pytest.mark.slow
def test_function_scope_gives_each_test_its_own_instance(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pack = write_pack(tmp_path / "pack")
    pytester.makepyfile(test_urls=URLS)
    result = pytester.runpytest_subprocess(f"--kindgi-pack={pack}", "--kindgi-dev-scope=function")
    result.assert_outcomes(passed=2)
    seen = (pytester.path / "urls.txt").read_text().splitlines()
    assert len(seen) == 2
    assert len(set(seen)) == 2
    assert all(line.startswith("http://127.0.0.1:") for line in seen)
    assert not (pack / ".kindgi").exists()


@pytest.mark.slow
def test_the_clients_and_a_flow_version_tried_on_its_test_cases(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_flow_try=FLOW_TRY)
    result = pytester.runpytest_subprocess(f"--kindgi-pack={EXAMPLE}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_a_version_tried_against_another_version(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_two_versions=TWO_VERSIONS)
    result = pytester.runpytest_subprocess(f"--kindgi-pack={EXAMPLE}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_check_promotion_after_trying_a_version(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_promotion=PROMOTION_CHECK)
    result = pytester.runpytest_subprocess(f"--kindgi-pack={EXAMPLE}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_folder_that_is_no_pack_says_how_to_name_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_any="def test_any(kindgi_dev):\n    pass\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*has no pyproject.toml: pass --kindgi-pack=<pack dir>*"])
