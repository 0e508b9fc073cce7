"""`kindgi agents promote|live|live-versions|rollback|unpin|gate-policy|promotions`,
`kindgi gate-policies …` and `kindgi approvals …` against a served app, as the real CLI
spells them; `promote --check` exits 1 on gate-failed, saying why on stderr."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cli_runner import Kindgi
from factories import AGENT, register_pack
from release_steps import corrected_suite, models_file, try_version
from serving import serve_app
from tables import every_row

from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings

STRICT = {"metrics": [{"name": "judgedCoverage", "minCandidate": 0.9}]}
LOOSE = {"metrics": [{"name": "weightedYesShare", "minCandidate": 0.9}], "replay": {}}


@dataclass
class Served:
    kindgi: Kindgi
    http: httpx.Client
    project: str
    database: Path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    settings = Settings(pack_dir=tmp_path, start_pack=False, watch=False,
                        models_file=models_file(tmp_path))  # fmt: skip
    app = create_app(settings)
    ctx = context_of(app)
    with serve_app(app) as url:
        register_pack(ctx, ("0.1.0", "0.2.0"))
        auth = {"Authorization": f"Bearer {ctx.identity.token}"}
        with httpx.Client(base_url=url, headers=auth, timeout=30) as http:
            project = corrected_suite(http, ctx)
            yield Served(Kindgi(url, ctx.identity.token), http, project, settings.database_path)


def publish(served: Served, spec: dict[str, object], version: str = "1.0.0") -> None:
    done = served.kindgi.json(
        "gate-policies", "publish", "acme.prod", f"--policy-version={version}", f"--agent={AGENT}",
        f"--project={served.project}", f"--spec={json.dumps(spec)}",
    )  # fmt: skip
    assert done["version"] == version


def test_check_promote_live_and_roll_back(served: Served) -> None:
    kindgi, project = served.kindgi, f"--project={served.project}"
    pinned = kindgi.json("agents", "promote", AGENT, "0.1.0", project, "--reason=first pin")
    assert (pinned["status"], pinned["toVersion"]) == ("promoted", "0.1.0")
    publish(served, LOOSE)
    run = try_version(served.http, served.project)
    checked = kindgi("agents", "promote", AGENT, "0.2.0", project, f"--eval-run={run['runId']}",
                     "--check")  # fmt: skip
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["outcome"] == "would-promote"
    made = kindgi.json("agents", "promote", AGENT, "0.2.0", project, f"--eval-run={run['runId']}")
    assert (made["status"], made["fromVersion"], made["toVersion"]) == (
        "promoted",
        "0.1.0",
        "0.2.0",
    )
    assert kindgi.json("agents", "live", AGENT, project)["version"] == "0.2.0"
    assert kindgi.json("agents", "live", AGENT)["via"] == "latest"
    table = kindgi("agents", "versions", AGENT, "--table")
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["ID", "VERSION", "NAME", "UNREGISTERED", "LIVE"]
    assert lines[3].endswith(f"project {served.project}") and " 0.2.0 " in lines[3]
    assert not lines[2].endswith(served.project)
    back = kindgi.json("agents", "rollback", AGENT, project)
    assert (back["action"], back["toVersion"]) == ("rollback", "0.1.0")
    pins = kindgi("agents", "live-versions", AGENT, "--table").stdout.splitlines()
    assert pins[2].split()[:3] == ["project", served.project, "0.1.0"]
    history = kindgi("agents", "promotions", "list", AGENT, project, "--table").stdout
    assert [line.split()[1:3] for line in history.splitlines()[2:]] == [
        ["rollback", "done"], ["promote", "promoted"], ["promote", "promoted"]]  # fmt: skip
    policy = kindgi.json("agents", "gate-policy", AGENT, project)["policy"]
    assert (policy["id"], policy["version"]) == ("acme.prod", "1.0.0")


def test_a_failing_check_exits_1_with_each_failed_message_and_writes_nothing(
    served: Served,
) -> None:
    kindgi, project = served.kindgi, f"--project={served.project}"
    kindgi.json("agents", "promote", AGENT, "0.1.0", project)
    publish(served, STRICT)
    run = try_version(served.http, served.project)
    before = every_row(served.database)
    checked = kindgi("agents", "promote", AGENT, "0.2.0", project, f"--eval-run={run['runId']}",
                     "--check")  # fmt: skip
    assert checked.exit_code == 1
    assert json.loads(checked.stdout)["outcome"] == "gate-failed"
    assert checked.stderr == "✗ Judged coverage is 0.167; the policy needs at least 0.9.\n"
    assert every_row(served.database) == before
    refused = kindgi("agents", "promote", AGENT, "0.2.0", project, f"--eval-run={run['runId']}")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.startswith(f"Error [gate-failed]: The gate refused {AGENT} 0.2.0: ")
    assert kindgi.json("agents", "live", AGENT, project)["version"] == "0.1.0"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("agents", "promote", AGENT, "0.2.0"), "Name the scope"),
        (("agents", "promote", AGENT, "0.2.0", "--tenant", "--project=p"), "Give one of"),
        (("agents", "rollback", AGENT, "--segment=company:acme"), "--segment needs --project"),
        (("agents", "unpin", AGENT, "--project=p", "--segment=acme"), "takes <key:value>"),
    ],
)
def test_a_scope_given_wrong_is_a_usage_error(
    served: Served, args: tuple[str, ...], said: str
) -> None:
    before = every_row(served.database)
    done = served.kindgi(*args)
    assert done.exit_code == 2 and said in done.stderr
    assert every_row(served.database) == before


def test_a_reviewer_token_decides_what_the_instance_asked(served: Served) -> None:
    kindgi, project = served.kindgi, f"--project={served.project}"
    kindgi.json("agents", "promote", AGENT, "0.1.0", project)
    publish(served, {**LOOSE, "approvals": {"role": "senior"}})
    run = try_version(served.http, served.project)
    asked = kindgi.json("agents", "promote", AGENT, "0.2.0", project, f"--eval-run={run['runId']}")
    assert asked["status"] == "pending-approval"
    own = kindgi("approvals", "complete", asked["approvalId"], "--decision=approve")
    assert own.exit_code == 1 and own.stdout == ""
    assert own.stderr.startswith("Error [auth]: Whoever asked for this may not approve it")
    second = kindgi.json("approvals", "reviewer-token", "--role=senior", "--name=Dana")
    assert second["role"] == "senior" and second["token"].startswith("kgi_bt_")
    reviewer = Kindgi(kindgi.target[1], second["token"])
    pending = reviewer.json("approvals", "list", "--status=pending")["data"]
    assert [a["id"] for a in pending] == [asked["approvalId"]]
    decided = reviewer.json("approvals", "complete", asked["approvalId"], "--decision=approve",
                            "--rationale=the share holds")  # fmt: skip
    assert decided["approval"]["status"] == "approved"
    assert kindgi.json("agents", "live", AGENT, project)["version"] == "0.2.0"
