"""`kindgi corrections|judgments|judge-classes` against a served app, through click's runner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import Kindgi
from factories import LOG, QUESTIONS, SEARCH, register_pack, tutorial_runs
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings

PASSWORD = next(iter(QUESTIONS))


@pytest.fixture
def kindgi(tmp_path: Path) -> Iterator[tuple[Kindgi, dict[str, str]]]:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False))
    ctx = context_of(app)
    register_pack(ctx)
    runs = tutorial_runs(ctx)
    with serve_app(app) as url:
        yield Kindgi(url, ctx.identity.token), runs


def test_the_tutorial_through_the_cli_reads_back_through_both_apis(kindgi: Any) -> None:
    run, runs = kindgi
    for question, run_id in runs.items():
        for i, key in enumerate(QUESTIONS[question]):
            verdict = "--yes" if i == 0 else "--no"
            so_far = run.json(
                "corrections", "add", f"--run={run_id}", f"--item={key}",
                f"--pointer=/output/articles/{i}", f"--rank={i}", verdict,
            )  # fmt: skip
            assert [item["key"] for item in so_far["items"]] == QUESTIONS[question][: i + 1]
    corrections = run.json("corrections", "list")["data"]
    assert len(corrections) == 3
    from_corrections = {
        (c["runId"], i["key"], i["pointer"], i["rank"], i["verdict"])
        for c in corrections
        for i in c["items"]
    }
    judgments = run.json("judgments", "list", "--limit=100")["data"]
    from_judgments = {
        (j["runId"], j["item"]["key"], j["item"]["pointer"], j["item"]["rank"],
         "right" if j["verdict"] == "yes" else "wrong")
        for j in judgments
    }  # fmt: skip
    assert len(judgments) == 9
    assert from_corrections == from_judgments
    assert sum(1 for row in from_judgments if row[4] == "right") == 3


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--item=kb-101", "--yes"], "--run=<run-id> is required"),
        (["--run=r", "--yes"], "--item=<key> is required"),
        (["--run=r", "--item=kb-101"], "Give exactly one of --yes or --no"),
        (["--run=r", "--item=kb-101", "--yes", "--no"], "Give exactly one of --yes or --no"),
        (["--run=r", "--item=kb-101", "--yes", "--rank=-1"], "--rank must be 0 or more"),
        (["--run=r", "--item=kb-101", "--yes", "--rank=one"], "--rank must be an integer"),
    ],
)
@pytest.mark.parametrize("group", ["judgments", "corrections"])
def test_usage_errors(kindgi: Any, group: str, flags: list[str], message: str) -> None:
    run, _ = kindgi
    result = run(group, "add", *flags)
    assert result.exit_code == 2
    assert message in result.stderr


def test_judgments_add_show_remove(kindgi: Any) -> None:
    run, runs = kindgi
    judgment = run.json(
        "judgments", "add", f"--run={runs[PASSWORD]}", "--item=kb-101",
        "--pointer=/output/articles/0", "--rank=0", "--yes", "--reason=Resets the password",
    )  # fmt: skip
    assert judgment["verdict"] == "yes" and judgment["reason"] == "Resets the password"
    shown = run.json("judgments", "show", judgment["id"])
    assert shown["itemValue"]["id"] == "kb-101" and shown["run"]["runId"] == runs[PASSWORD]
    assert run.json("judgments", "list", "--verdict=yes")["data"][0]["id"] == judgment["id"]
    removed = run.json("judgments", "remove", judgment["id"])
    assert removed == {"judgmentId": judgment["id"], "removed": True}
    again = run("judgments", "unregister", judgment["id"])
    assert again.exit_code == 1
    assert "Error [judgment-already-unregistered]" in again.stderr
    bad = run("judgments", "list", "--verdict=maybe")
    assert bad.exit_code == 2 and 'must be one of yes, no, got "maybe"' in bad.stderr


@pytest.mark.parametrize(
    ("pointer", "tag"),
    [("output/articles/0", "invalid-request"), ("/output/articles/9", "invalid-request")],
)
def test_an_api_refusal_exits_1_with_its_field(kindgi: Any, pointer: str, tag: str) -> None:
    run, runs = kindgi
    result = run(
        "corrections", "add", f"--run={runs[PASSWORD]}", "--item=kb-101",
        f"--pointer={pointer}", "--rank=0", "--yes",
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"Error [{tag}]" in result.stderr
    assert "  ✗ items/0/pointer:" in result.stderr


def test_judge_classes_commands_and_aliases(kindgi: Any) -> None:
    run, runs = kindgi
    made = run.json(
        "judge-classes", "add", "--tenant", "--name=expert", "--weight=3",
        "--principal-id=someone-else",
    )  # fmt: skip
    assert made["assertableBy"] == {"principalIds": ["someone-else"], "principalCount": 1}
    other = run.json("judge-classes", "create", "--tenant", "--name=user", "--weight=0.5")
    assert other["weight"] == 0.5
    listed = run.json("judge-classes", "list", "--tenant")["data"]
    assert sorted(c["name"] for c in listed) == ["expert", "user"]
    refused = run(
        "judgments", "add", f"--run={runs[PASSWORD]}", "--item=kb-101", "--yes",
        f"--class={made['id']}",
    )  # fmt: skip
    assert refused.exit_code == 1 and "Error [auth]" in refused.stderr
    lifted = run.json("judge-classes", "set", made["id"], "--unrestricted", "--weight=2")
    assert "assertableBy" not in lifted and lifted["weight"] == 2
    assert run.json("judge-classes", "update", made["id"], "--description=Leads")["description"]
    assert run.json("judge-classes", "show", made["id"])["description"] == "Leads"
    assert run.json("judge-classes", "remove", made["id"]) == {
        "judgeClassId": made["id"],
        "removed": True,
    }
    again = run("judge-classes", "unregister", made["id"])
    assert again.exit_code == 1 and "judge-class-already-unregistered" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "--name=x", "--weight=1"], "Give a scope"),
        (["add", "--tenant", "--project=p", "--name=x", "--weight=1"], "--tenant goes alone"),
        (["add", "--agent=a", "--name=x", "--weight=1"], "--agent needs --project"),
        (["add", "--tenant", "--name=x", "--weight=-1"], "--weight must be 0 or more"),
        (["set", "some-id"], "Give something to change"),
        (["set", "some-id", "--unrestricted", "--principal-id=u"], "--unrestricted goes without"),
    ],
)
def test_judge_classes_usage_errors(kindgi: Any, args: list[str], message: str) -> None:
    run, _ = kindgi
    result = run("judge-classes", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_decisions_answer_status_and_show(kindgi: Any) -> None:
    run, runs = kindgi
    run_id = runs[PASSWORD]
    made = run.json(
        "corrections", "decisions", f"--run={run_id}", f"--should-call={SEARCH}",
        '--args={"query": "reset password"}', f"--must-not-call={LOG}",
    )  # fmt: skip
    assert made["decisions"] == {
        "verdict": "wrong",
        "shouldCall": [{"toolId": SEARCH, "args": {"query": "reset password"}}],
        "mustNotCall": [LOG],
    }
    answered = run.json(
        "corrections", "answer", f"--run={run_id}", "--wrong", "--should-say=Try kb-101"
    )
    assert answered["id"] == made["id"]
    assert answered["answer"] == {"verdict": "wrong", "shouldSay": "Try kb-101"}
    fixed = run.json("corrections", "set-status", made["id"], "fixed")
    assert fixed["status"] == "fixed"
    shown = run.json("corrections", "show", made["id"])
    assert shown["decisions"]["mustNotCall"] == [LOG] and shown["status"] == "fixed"
    assert run.json("corrections", "list", "--status=fixed")["data"][0]["id"] == made["id"]
    both = run("corrections", "answer", f"--run={run_id}", "--right", "--wrong")
    assert both.exit_code == 2 and "exactly one of --right or --wrong" in both.stderr
    unknown = run("corrections", "decisions", f"--run={run_id}", "--should-call=acme.nope")
    assert unknown.exit_code == 1 and "decisions/shouldCall/0/toolId" in unknown.stderr
