"""Every leaf command of the real CLI 0.1.10, tried against `kindgi dev` as a new user would.

The table says, for each command its `--help` lists, what it does here: it works (exit 0,
its JSON parses as the official client's model of that operation), kindgi dev doesn't serve
it (exit 1, `Error [not-in-kindgi-dev]: <what a deployed runtime does>`), or it doesn't
apply on a laptop (Docker, the cloud, files of the pack folder: the reason is in the row).
No command may end with `No route`. The rows run in order, against one `kindgi dev` on a
copy of the example pack; `{names}` in a row are ids an earlier step made.
"""

from __future__ import annotations

import json
import re
import subprocess
import typing
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from desk_pack import write_desk_pack
from devserver import KINDGI, DevServer, clean_env, copy_example, start
from kindgi.client import Kindgi
from pydantic import TypeAdapter
from test_real_cli import real_kindgi as real_kindgi  # the real CLI's fixture

pytestmark = pytest.mark.slow

WORKS, NOT_HERE, ELSEWHERE = "works", "not-in-kindgi-dev", "not applicable"
AGENT = "acme-ops.article-picker"
SLOW = "acme-ops.slow-picker"
SEARCH = "acme-ops.search-articles"
FLOW = "acme-ops.suggest-articles"
DESK = "acme-desk.helper"
GUARDRAIL = "acme-desk.answer-not-empty"
QUESTION = json.dumps({"userMessage": "I forgot my password and can't sign in."})
NAME = re.compile(r"{(\w+)}")
REPEATED = {"runs start", "eval-runs start", "agents promote"}
"""Commands the table runs more than once (with other arguments)."""


@dataclass(frozen=True)
class Row:
    """One leaf command, what follows it, and what it does against kindgi dev."""

    words: str
    args: tuple[str, ...] = ()
    expect: str = WORKS
    model: str | None = None
    """The official client's method for the operation: the JSON must parse as what it returns."""
    keep: str | None = None
    """Remember the answer's `id` (or `runId`) under this name for the rows after it."""
    why: str = ""
    on: str = "example"
    """The pack its `kindgi dev` serves: `example` (the article picker), or `desk` (the help
    desk: a tool that waits for an approval, guardrails)."""
    says: str = ""
    """What a refused command prints: the 501's code and sentence, or for a command whose
    client reads no error envelope (a download, a stream) the status it saw."""


def works(
    words: str, *args: str, model: str | None = None, keep: str | None = None,
    on: str = "example",
) -> Row:  # fmt: skip
    return Row(words, args, WORKS, model, keep, on=on)


def here_not(words: str, *args: str, says: str = "Error [not-in-kindgi-dev]: ") -> Row:
    return Row(words, args, NOT_HERE, says=says)


def elsewhere(words: str, why: str) -> Row:
    return Row(words, (), ELSEWHERE, why=why)


SCOPE = "--project={project}"
SPEC = "--spec=@{files}/spec.json"
ROWS: tuple[Row, ...] = (
    works("version"),
    works("health", model="system.health"),
    works("auth whoami"),
    works("egress", "--json"),
    works("projects list", model="projects.list"),
    works("projects get-default", model="projects.get_default"),
    works("projects get", "{project}", model="projects.get"),
    works("projects create", "--name=Help desk", model="projects.get", keep="made"),
    works("projects rename", "{made}", "--name=Support", "--slug=support", model="projects.get"),
    works("projects production", "{made}", "on", "--json", model="projects.production.set"),
    works("tenant get", model="tenant.get"),
    works("tenant rename", "--name=Acme", model="tenant.get"),
    works("agents list", model="agents.list"),
    works("agents get", AGENT, model="agents.get"),
    works("agents versions", AGENT, model="agents.list_versions"),
    here_not("agents publish", SPEC),
    here_not("agents derive", AGENT, "--from=0.1.0", "--setting=acme.weights=1.0.0"),
    here_not("agents unregister", AGENT, "0.1.0"),
    works("agents promote", AGENT, "0.1.0", SCOPE, model="agents.promotions.create",
          keep="promotion"),
    works("gate-policies publish", "acme.gate", "--policy-version=1.0.0", f"--agent={AGENT}",
          SCOPE, "--spec=@{files}/policy.json", model="gate_policies.publish"),
    works("gate-policies list", model="gate_policies.list"),
    works("gate-policies show", "acme.gate", model="gate_policies.get"),
    works("gate-policies versions", "acme.gate", model="gate_policies.versions.list"),
    works("agents gate-policy", AGENT, SCOPE, model="agents.gate_policy.resolve"),
    works("agents promote", AGENT, "0.2.0", SCOPE, model="agents.promotions.create"),
    works("agents live", AGENT, SCOPE, model="agents.live.resolve"),
    works("agents live-versions", AGENT, model="agents.live.list"),
    works("agents rollback", AGENT, SCOPE, model="agents.live.rollback"),
    works("agents promotions list", AGENT, model="agents.promotions.list"),
    works("agents promotions get", AGENT, "{promotion}", model="agents.promotions.get"),
    works("gate-policies unregister", "acme.gate", "1.0.0",
          model="gate_policies.versions.unregister"),
    works("gate-policies reinstate", "acme.gate", "1.0.0",
          model="gate_policies.versions.reinstate"),
    works("agents promote", AGENT, "0.1.0", "--tenant", model="agents.promotions.create"),
    works("agents unpin", AGENT, "--tenant", model="agents.live.unpin"),
    works("tools list", model="tools.list"),
    works("tools get", SEARCH, model="tools.get"),
    works("tools versions", SEARCH, model="tools.list_versions"),
    works("tools get-version", SEARCH, "0.1.0", model="tools.get_version"),
    here_not("tools publish", "--manifest=@{files}/spec.json"),
    here_not("tools unregister", SEARCH, "0.1.0"),
    here_not("tools reinstate", SEARCH, "0.1.0"),
    works("flows list", model="flows.list"),
    works("flows get", FLOW, model="flows.get"),
    works("flows versions", FLOW, model="flows.list_versions"),
    here_not("flows publish", SPEC),
    here_not("flows unregister", FLOW, "0.1.0"),
    here_not("flows reinstate", FLOW, "0.1.0"),
    works("runs start", f"--agent={AGENT}", f"--input={QUESTION}", model="runs.start",
          keep="started"),
    works("runs start", f"--agent={SLOW}", f"--input={QUESTION}", "--no-wait",
          model="runs.start", keep="slow"),
    works("runs cancel", "{slow}"),
    works("runs list", model="runs.list"),
    works("runs get", "{started}", model="runs.get"),
    works("runs journal", "{started}", model="runs.journal"),
    works("runs stream", "{started}"),
    works("runs resume", "{started}"),
    works("conversations list", model="conversations.list"),
    works("conversations get", "{conversation}", model="conversations.get"),
    works("conversations messages", "{conversation}", model="conversations.messages"),
    works("conversations open", AGENT, "0.1.0", model="conversations.open", keep="opened"),
    works("conversations close", "{opened}", model="conversations.close"),
    works("conversations unregister", "{opened}", model="conversations.unregister"),
    works("judgments add", "--run={run}", "--item=kb-102", "--pointer=/output/articles/1",
          "--rank=1", "--no", model="judgments.create", keep="judged"),
    works("judgments list", "--run={run}", model="judgments.list"),
    works("judgments show", "{judged}", model="judgments.get"),
    works("judgments remove", "{judged}"),
    works("judge-classes list", model="judge_classes.list"),
    works("judge-classes add", "--name=experts", "--weight=2", "--tenant",
          model="judge_classes.create", keep="class"),
    works("judge-classes set", "{class}", "--weight=3", model="judge_classes.update"),
    works("judge-classes remove", "{class}"),
    works("eval-suites from-judgments", "acme.sweep", "--suite-version=1.0.0", SCOPE,
          f"--agent={AGENT}", model="eval_suites.build_from_judgments"),
    works("eval-suites list", model="eval_suites.list"),
    works("eval-suites show", "acme.sweep", model="eval_suites.get"),
    works("eval-suites cases", "acme.sweep", "--suite-version=1.0.0",
          model="eval_suites.list_cases"),
    works("eval-runs start", "acme.sweep", SCOPE, f"--agent={AGENT}", "--wait",
          model="eval_runs.get", keep="tried"),
    works("eval-runs start", "{agent_set}", SCOPE, f"--agent={AGENT}", "--wait",
          model="eval_runs.get"),
    works("eval-runs start", "acme.sweep", SCOPE, f"--agent={SLOW}", model="eval_runs.start",
          keep="slow_trial"),
    works("eval-runs cancel", "{slow_trial}", model="eval_runs.cancel"),
    works("eval-runs show", "{tried}", model="eval_runs.get"),
    works("eval-runs list", model="eval_runs.list"),
    works("eval-runs rescore", "{tried}", model="eval_runs.rescore"),
    works("blocks publish", "acme.weights", "--block-version=1.1.0", SCOPE,
          '--settings={"top": 2}', model="blocks.publish"),
    works("blocks list", model="blocks.list"),
    works("blocks show", "acme.weights", model="blocks.get"),
    works("blocks versions", "acme.weights", model="blocks.versions.list"),
    works("blocks unregister", "acme.weights", "--block-version=1.1.0",
          model="blocks.versions.unregister"),
    works("blocks reinstate", "acme.weights", "--block-version=1.1.0",
          model="blocks.versions.reinstate"),
    works("providers list", model="providers.list"),
    works("providers presets"),
    works("providers register", "--spec=@{files}/provider.json", model="providers.register"),
    works("providers get", "local-llm", model="providers.get"),
    works("providers unregister", "local-llm", model="providers.unregister"),
    works("capabilities list", model="capabilities.list"),
    works("capabilities get", "feature:tool-use", model="capabilities.get"),
    works("usage", model="usage.read"),
    works("guardrails list", model="guardrails.list", on="desk"),
    works("guardrails get", GUARDRAIL, model="guardrails.get", on="desk"),
    here_not("guardrails register", SPEC),
    here_not("guardrails unregister", GUARDRAIL),
    works("memory facts write", "--input=@{files}/fact.json", model="memory.write_fact",
          keep="fact"),
    works("memory facts list", model="memory.list_facts"),
    works("memory facts get", "{fact}", model="memory.get_fact"),
    works("memory facts supersede", "{fact}", "--input=@{files}/revision.json",
          model="memory.supersede_fact"),
    works("memory facts revisions", "{fact}"),
    works("memory facts verify", "{fact}", model="memory.verify_fact"),
    works("memory facts retrieve", "--query=@{files}/query.json"),
    works("memory facts delete", "{fact}", model="memory.delete_fact"),
    works("memory erasures create", "--participant=p-1", model="memory.create_erasure",
          keep="erasure"),
    works("memory erasures get", "{erasure}", model="memory.get_erasure"),
    works("memory erasures list", model="memory.list_erasures"),
    works("memory erasures resume", "{erasure}", model="memory.resume_erasure"),
    works("memory erasures export"),
    works("memory erasures replay", "{files}/ledger.json", model="memory.replay_erasures"),
    here_not("proposals list"),
    here_not("proposals get", "proposal-1"),
    here_not("proposals draft", f"--agent={AGENT}", "--from-version=0.1.0", SCOPE,
             "--block=acme.weights", '--values={"top": 1}', "--hypothesis=Fewer is better"),
    here_not("proposals evaluate", "proposal-1", "--test-set=acme.sweep"),
    here_not("proposals request", "proposal-1"),
    here_not("proposals rollback", "proposal-1"),
    here_not("proposals withdraw", "proposal-1", "--reason=Not now"),
    here_not("proposals improve", f"--agent={AGENT}", SCOPE, "--test-set=acme.sweep"),
    here_not("proposals passes list"),
    here_not("proposals passes get", "pass-1"),
    here_not("proposals passes cancel", "pass-1"),
    here_not("provenance list"),
    here_not("provenance get", "{run}"),
    here_not("provenance export", "{run}"),
    here_not("artifacts list"),
    here_not("artifacts get", "blob-1", says="Error [server]: HTTP 501"),
    here_not("artifacts upload", "{files}/spec.json"),
    here_not("artifacts download", "blob-1", "-o", "{files}/blob.bin"),
    here_not("artifacts delete", "blob-1"),
    here_not("schedules list"),
    here_not("schedules get", "schedule-1"),
    here_not("schedules create", "--cron=0 9 * * *", f"--agent={AGENT}", f"--input={QUESTION}",
             SCOPE),
    here_not("schedules update", "schedule-1", "--cron=0 10 * * *"),
    here_not("schedules pause", "schedule-1"),
    here_not("schedules resume", "schedule-1"),
    here_not("schedules run-now", "schedule-1"),
    here_not("schedules fires", "schedule-1"),
    here_not("schedules take-ownership", "schedule-1"),
    here_not("schedules unregister", "schedule-1"),
    here_not("webhooks list"),
    here_not("webhooks get", "trigger-1"),
    here_not("webhooks register", f"--flow={FLOW}", "--flow-version=0.1.0", "--secret=HOOK_KEY",
             "--preset=github", SCOPE),
    here_not("webhooks update", "trigger-1", "--flow-version=0.1.0"),
    here_not("webhooks pause", "trigger-1"),
    here_not("webhooks resume", "trigger-1"),
    here_not("webhooks fires", "trigger-1"),
    here_not("webhooks take-ownership", "trigger-1"),
    here_not("webhooks unregister", "trigger-1"),
    works("approvals list", "--token={reviewer}", model="approvals.list", on="desk"),
    works("approvals get", "{approval}", "--token={reviewer}", model="approvals.get",
          on="desk"),
    works("approvals complete", "{approval}", "--decision=approve", "--token={reviewer}",
          model="approvals.complete", on="desk"),
    here_not("approvals export", "approval-1"),
    works("reviewers register", "--spec=@{files}/reviewer.json",
          model="approvals.reviewers.register", keep="reviewer_id"),
    works("reviewers list", model="approvals.reviewers.list"),
    works("reviewers get", "{reviewer_id}", model="approvals.reviewers.get"),
    works("reviewers unregister", "{reviewer_id}", model="approvals.reviewers.unregister"),
    works("tokens create", "--label=nightly"),
    here_not("tokens list"),
    here_not("tokens get", "token-1"),
    here_not("tokens revoke", "token-1"),
    here_not("service-accounts create", "ci-bot"),
    here_not("service-accounts list"),
    here_not("service-accounts get", "sa-1"),
    here_not("service-accounts grant", "sa-1", "--tenant-member"),
    here_not("service-accounts ungrant", "sa-1", "--tenant-member"),
    here_not("service-accounts unregister", "sa-1"),
    here_not("people add", "--name=Ada"),
    here_not("people invite", "user-1"),
    here_not("people list"),
    here_not("people get", "user-1"),
    here_not("people grants", "user-1"),
    here_not("people grant", "user-1", "--tenant-admin"),
    here_not("people ungrant", "user-1", "--tenant-admin"),
    here_not("people second-factor", "user-1"),
    here_not("people reset-second-factor", "user-1"),
    here_not("people remove", "user-1"),
    here_not("adapters prepare", "openai-compat", says="Error: SSE upstream returned HTTP 501"),
    here_not("deployments list"),
    here_not("deployments get", "deployment-1"),
    here_not("environments list"),
    here_not("environments set", "staging", "--projects={project}"),
    here_not("environments clear"),
    here_not("env list", "--env=local", "--scope=tenant"),
    here_not("env set", "REGION", "eu", "--env=local", "--scope=tenant"),
    here_not("env unset", "REGION", "--env=local", "--scope=tenant"),
    here_not("env pull", "--env=local", "--scope=tenant"),
    here_not("secrets list", "--env=local", "--scope=tenant"),
    here_not("secrets get", "API_KEY", "--env=local", "--scope=tenant"),
    here_not("secrets set", "API_KEY", "--env=local", "--scope=tenant",
             "--from-file={files}/secret.txt"),
    here_not("secrets rotate", "API_KEY", "--env=local", "--scope=tenant",
             "--from-file={files}/secret.txt"),
    here_not("secrets revoke", "API_KEY", "--env=local", "--scope=tenant"),

    here_not("sso providers list"),
    here_not("sso providers get", "okta"),
    here_not("sso providers start", "okta", "--kind=oidc", "--idp=okta"),
    here_not("sso providers finish", "okta", "--domains=acme.example", "--kind=oidc",
             "--issuer=https://acme.okta.example", "--client-id=kindgi",
             "--client-secret-ref=OKTA_SECRET"),
    here_not("sso providers update", "okta", "--name=Okta"),
    here_not("sso providers test", "okta"),
    here_not("sso providers remove", "okta"),
    here_not("sign-in settings"),
    here_not("sites list"),
    here_not("sites get", "site-1", SCOPE),
    here_not("sites register", "--name=Shop", "--origin=https://shop.example",
             "--approvals-url=https://shop.example/approvals/{approvalId}", SCOPE),
    here_not("sites update", "site-1", "--name=Shop", SCOPE),
    here_not("sites code", "site-1", SCOPE),
    here_not("sites pause", "site-1", SCOPE),
    here_not("sites resume", "site-1", SCOPE),
    here_not("sites revoke-key", "site-1", "kid-1", SCOPE),
    here_not("sites restore-person", "site-1", "user-1", SCOPE),
    here_not("sites unregister", "site-1", SCOPE),
    here_not("key trust", "acme-ci", "--home={files}/keys"),
    here_not("key revoke", "acme-ci"),
    works("exports create", "--out={files}/export", "--json"),
    elsewhere("exports verify", "it checks a signed export's file; kindgi dev signs none"),
    elsewhere("secrets pull", "the PyPI build of 0.1.10 can't run it (`Internal error: kindgi"
              " secrets pull requires env runners`)"),
    elsewhere("secrets copy", "it copies the app's env files into the pack's"
              " .kindgi/secrets.env"),
    elsewhere("key create", "it makes a signing key pair in ~/.kindgi/keys, on this machine"),
    elsewhere("key export", "it prints a key of ~/.kindgi/keys, on this machine"),
    elsewhere("key list", "it lists ~/.kindgi/keys, on this machine"),
    elsewhere("auth login", "it stores a deployed runtime's URL and key in ~/.kindgi"),
    elsewhere("auth registry", "it logs Docker in to the runtime image's registry"),
    elsewhere("init", "it scaffolds a pack's files (kindgi dev's own `kindgi init` does too)"),
    elsewhere("upgrade", "it moves a Java or Scala pack's CLI pin, in the pack's files"),
    elsewhere("dev", "it runs the runtime in Docker (test_real_cli.py: it finds ours running)"),
    elsewhere("console", "it opens a browser on the console"),
    elsewhere("build", "it builds and signs a pack image with Docker or the build service"),
    elsewhere("deploy", "it deploys a signed image to a Kindgi runtime"),
    elsewhere("promote", "it moves a deployed build between the environments of an order"),
    elsewhere("test", "it runs a TypeScript pack's vitest"),
    elsewhere("doctor", "it checks this machine's Node and Docker too (its runtime checks pass:"
              " test_real_cli.py)"),
    elsewhere("env init", "it writes the pack's env file settings"),
    elsewhere("env plan", "it prints Terraform or gcloud input for a deployed environment"),
    elsewhere("license enroll", "it enrolls a deployment with Kindgi's license service"),
    elsewhere("license renew", "it renews a deployment's key with Kindgi's license service"),
    elsewhere("mcp add", "it edits the pack's .mcp.json"),
    elsewhere("mcp list", "it reads the pack's .mcp.json"),
    elsewhere("mcp remove", "it edits the pack's .mcp.json"),
    elsewhere("mcp presets", "it lists the MCP presets shipped with the CLI"),
    elsewhere("mcp-launch", "MCP clients start it through .mcp.json; not for direct use"),
    elsewhere("skills sync", "it copies the pack's skills into .claude/ and .agents/"),
    elsewhere("feedback write", "it writes a report into the pack folder for Kindgi"),
    elsewhere("feedback submit", "it sends reports to Kindgi"),
    elsewhere("feedback status", "it asks Kindgi about sent reports"),
    elsewhere("feedback withdraw", "it withdraws a report sent to Kindgi"),
)  # fmt: skip

FILES = {
    "spec.json": {"id": "acme.sweep-spec", "version": "0.1.0", "name": "Sweep"},
    "ledger.json": {"erasures": []},
    "policy.json": {},
    "fact.json": {"type": "note", "content": {"text": "Prefers short answers."}},
    "revision.json": {"content": {"text": "Prefers very short answers."}},
    "query.json": {"mode": "list"},
    "reviewer.json": {"role": "standard", "principal": {"kind": "user", "id": "user-1"}},
    "provider.json": {
        "metadata": {"id": "local-llm", "region": "local", "models": [
            {"name": "llama-x", "contextWindow": 8192, "features": ["tool-use"],
             "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]},
        "adapter_id": "@kindgi/adapter-model-openai-compat",
        "adapter_config": {"baseURL": "http://127.0.0.1:9/v1"},
    },
}  # fmt: skip
SLOW_MODEL = '''

@model()
def slow(turn: Turn) -> Reply:
    """Takes its time, so a run of it can be cancelled while it runs."""
    import time

    time.sleep(20)
    return Reply(text="Done at last.")
'''
SLOW_AGENT = f'''"""An agent whose model takes its time (the CLI sweep cancels its runs)."""

from kindgi import Agent

slow_picker = Agent(
    id="{SLOW}", version="0.1.0", name="Slow picker", instructions="Take your time.",
    preferred_provider="function", preferred_model="slow",
)
'''


TREE = """
const dist = process.argv[2];
const { ROOT_COMMANDS } = await import(`${dist}/commands/index.js`);
const { wiredCommands } = await import(`${dist}/commands/unwired.js`);
const leaves = [];
function walk(commands, path) {
  for (const command of wiredCommands(commands, path)) {
    const here = [...path, command.name];
    if (command.kind === "group") walk(command.subcommands, here);
    else leaves.push(here.join(" "));
  }
}
walk(ROOT_COMMANDS, []);
console.log(JSON.stringify(leaves));
"""
"""Prints the leaf commands of the tree the real CLI's `--help` is printed from."""


def leaf_commands(binary: Path, scratch: Path) -> set[str]:
    """Every leaf command of the real CLI, read from the command tree its help prints (one
    node process, where a `--help` of each of the 240 would take minutes)."""
    python = binary.with_name("python")
    where = subprocess.run(
        [str(python), "-c", "import kindgi_cli.__main__ as m; print(m.node_path(), m.CLI)"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    script = scratch / "tree.mjs"
    script.write_text(TREE)
    listed = subprocess.run([where[0], str(script), str(Path(where[1]).parent)],
                            capture_output=True, text=True, check=True)  # fmt: skip
    return set(json.loads(listed.stdout))


def top_level(binary: Path) -> set[str]:
    """The commands `kindgi --help` lists."""
    lines = run_real(binary, None, ["--help"]).stdout.splitlines()
    listed = lines[lines.index("Commands:") + 1 :]
    return {line.split()[0] for line in listed[: listed.index("")]}


def answer_type(method: str) -> Any:
    """What the official client's method returns (`projects.production.set` → its model)."""
    found: Any = Kindgi(base_url="http://127.0.0.1:9", token="kgi_bt_unused")
    for part in method.split("."):
        found = getattr(found, part)
    return typing.get_type_hints(found)["return"]


@pytest.fixture(scope="module")
def sweep_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example pack with the picker at 0.1.0 and 0.2.0 (the release rows move between
    them), a slow agent beside it, and the files rows read."""
    pack = copy_example(tmp_path_factory.mktemp("sweep") / "article-picker")
    with (pack / "dev_models.py").open("a") as models:
        models.write(SLOW_MODEL)
    (pack / "agents" / "slow_picker.py").write_text(SLOW_AGENT)
    picker = (pack / "agents" / "article_picker.py").read_text()
    second = picker.replace('version="0.1.0"', 'version="0.2.0"')
    (pack / "agents" / "article_picker_2.py").write_text(second.replace(
        "article_picker = Agent(", "article_picker_2 = Agent("))  # fmt: skip
    files = pack.parent / "files"
    files.mkdir()
    for name, content in FILES.items():
        (files / name).write_text(json.dumps(content))
    (files / "secret.txt").write_text("s3cret")
    (files / "secret.txt").chmod(0o600)
    return pack


@pytest.fixture(scope="module")
def server(sweep_pack: Path) -> Iterator[DevServer]:
    running = start(sweep_pack)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    running = start(write_desk_pack(tmp_path_factory.mktemp("sweep-desk") / "help-desk"))
    yield running
    running.stop()


def held_for_approval(desk: DevServer) -> dict[str, str]:
    """A refund a service account's run waits on, and a second reviewer's key to decide it
    (kindgi dev's own `approvals reviewer-token`)."""
    ours = subprocess.run([KINDGI, "approvals", "reviewer-token", "--role=standard"],
                          cwd=desk.pack, env=clean_env(), capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert ours.returncode == 0, ours.stderr
    reviewer = json.loads(ours.stdout)["token"]
    with desk.client() as http:
        owner = {"kind": "service-account", "id": str(uuid.uuid4())}
        robot = http.post("/v1/tokens", json={"for": owner, "label": "refunds"}).json()["token"]
        said = {"userMessage": "Refund order 34."}
        run = http.post("/v1/runs", json={"agent": DESK, "input": said},
                        headers={"Authorization": f"Bearer {robot}"}).json()  # fmt: skip
        assert run["status"] == "suspended", run
        waiting = http.get("/v1/approvals", params={"runId": run["id"]},
                           headers={"Authorization": f"Bearer {reviewer}"}).json()  # fmt: skip
    return {"reviewer": reviewer, "approval": waiting["data"][0]["id"]}


def prepared(server: DevServer, binary: Path) -> dict[str, str]:
    """What the rows name: a project, a judged run and its conversation, a settings block,
    the agent's test set id, a local signing key, and the folder of the rows' files."""
    files = server.pack.parent / "files"
    made = run_real(binary, server, ["key", "create", "acme-ci", f"--home={files / 'keys'}"])
    assert made.returncode == 0, made.stderr
    with server.client() as http:
        project = http.get("/v1/projects/default").json()["id"]
        started = http.post("/v1/runs", json={"agent": AGENT, "input": json.loads(QUESTION)})
        run = started.json()
        for rank, verdict in ((0, "yes"), (1, "no")):
            item = {"key": run["output"]["output"]["articles"][rank]["id"],
                    "pointer": f"/output/articles/{rank}", "rank": rank}  # fmt: skip
            judged = http.post("/v1/judgments", json={"runId": run["id"], "verdict": verdict,
                                                       "item": item})  # fmt: skip
            assert judged.status_code == 201, judged.text
        correction = {
            "runId": run["id"],
            "items": [
                {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right"}
            ],
        }
        assert http.post("/v1/corrections", json=correction).status_code == 201
        block = {"projectId": project, "id": "acme.weights", "version": "1.0.0",
                 "kind": "settings", "content": {"values": {"top": 3}}}  # fmt: skip
        assert http.post("/v1/blocks", json=block).status_code == 201
    return {
        "project": project,
        "run": run["id"],
        "conversation": run["agent"]["conversationId"],
        "agent_set": f"{AGENT}~{project}",
        "files": str(server.pack.parent / "files"),
    }


def run_real(
    binary: Path, server: DevServer | None, args: list[str]
) -> subprocess.CompletedProcess[str]:
    """The real CLI run in the pack folder (it finds `.kindgirc.json` there)."""
    return subprocess.run([str(binary), *args], cwd=server.pack if server else None,
                          env=clean_env(), capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def judged(row: Row, done: subprocess.CompletedProcess[str]) -> str | None:
    """What is wrong with a row's outcome, or None."""
    said = f"exit {done.returncode}: {done.stdout[-400:]}{done.stderr[-400:]}"
    if "No route" in done.stdout + done.stderr:
        return f"No route: {said}"
    if row.expect == NOT_HERE:
        ok = done.returncode == 1 and row.says in done.stderr
        return None if ok else f"not the not-in-kindgi-dev answer: {said}"
    if done.returncode != 0:
        return f"failed: {said}"
    try:
        answer = json.loads(done.stdout) if row.words != "runs stream" else [
            json.loads(line) for line in done.stdout.splitlines()]  # fmt: skip
    except ValueError:
        return f"printed no JSON: {said}"
    if row.model is not None:
        shape = answer_type(row.model)
        if shape is not None and shape is not type(None):
            try:
                TypeAdapter(shape).validate_python(answer)
            except ValueError as error:
                return f"doesn't parse as {row.model}'s answer: {error}"
    return None


PLAIN_SKIPS = (
    "this server doesn't serve ",
    "it's read for each record of ",
    "export-signing-keys wasn't exported, so it isn't known whether this server signs",
)
"""Why `exports create` may skip a kind: kindgi dev doesn't serve it (its 501), it is read
from the records of a kind that wasn't exported, or it is a signed file and kindgi dev
serves no export signing keys."""


def said_unplainly(kinds: dict[str, Any]) -> str | None:
    """Which kinds of an export's manifest say something misleading: records "gone before
    they could be read" (issue 28: not for a kind kindgi dev lacks), or a skip for another
    reason than not being served."""
    odd = {
        name: kind
        for name, kind in kinds.items()
        if "gone" in kind
        or (kind["status"] == "skipped" and not kind["reason"].startswith(PLAIN_SKIPS))
    }
    return f"kinds said unplainly: {odd}" if odd else None


def filled(arg: str, names: dict[str, str]) -> str:
    """`arg` with each `{name}` an earlier step made replaced (other braces stay)."""
    return NAME.sub(lambda m: names.get(m.group(1), m.group(0)), arg)


def kept(row: Row, stdout: str) -> str:
    answer = json.loads(stdout)
    return str(answer.get("id") or answer.get("runId"))


def test_the_table_has_every_leaf_command_once(real_kindgi: Path, tmp_path: Path) -> None:
    named = Counter(row.words for row in ROWS)
    assert [words for words, n in named.items() if n > 1 and words not in REPEATED] == []
    leaves = leaf_commands(real_kindgi, tmp_path)
    assert {leaf.split()[0] for leaf in leaves} == top_level(real_kindgi)
    assert sorted(set(named) - leaves) == [] and sorted(leaves - set(named)) == []
    assert all(row.why for row in ROWS if row.expect == ELSEWHERE)
    kinds = {row.words: row.expect for row in ROWS}
    assert len(kinds) == len(leaves) == 240


def test_every_command_that_applies_works_or_says_kindgi_dev_does_not_serve_it(
    real_kindgi: Path, server: DevServer, desk: DevServer
) -> None:
    names = {**prepared(server, real_kindgi), **held_for_approval(desk)}
    servers = {"example": server, "desk": desk}
    exports = next(row for row in ROWS if row.words == "exports create")
    export_args = [*exports.words.split(), *(filled(a, names) for a in exports.args)]
    export = subprocess.Popen(  # its reader waits 7 s on each kind not served: run it beside
        [str(real_kindgi), *export_args], cwd=server.pack, env=clean_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    problems: dict[str, str] = {}

    def attempt(
        row: Row, names: dict[str, str]
    ) -> tuple[Row, list[str], subprocess.CompletedProcess[str]]:
        args = [*row.words.split(), *(filled(a, names) for a in row.args)]
        return row, args, run_real(real_kindgi, servers[row.on], args)

    refused = [row for row in ROWS if row.expect == NOT_HERE]
    prepared_names = dict(names)  # what they name was made before any row ran
    # These change nothing: two at a time, beside the rows that work (the sweep's longest
    # part, one after another), so a 2-core machine isn't left with one busy core.
    with ThreadPoolExecutor(max_workers=2) as pool:
        tried = pool.map(lambda row: attempt(row, prepared_names), refused)
        for row in ROWS:  # these build on each other: in order
            if row.expect != WORKS or row is exports:
                continue
            row, args, done = attempt(row, names)
            if (wrong := judged(row, done)) is not None:
                problems[" ".join(args)] = wrong
            elif row.keep is not None:
                names[row.keep] = kept(row, done.stdout)
        for row, args, done in tried:
            if (wrong := judged(row, done)) is not None:
                problems[" ".join(args)] = wrong
    out, err = export.communicate(timeout=900)
    wrong = judged(exports, subprocess.CompletedProcess(export.args, export.returncode, out, err))
    wrong = wrong or said_unplainly(json.loads(out)["kinds"])
    if wrong is not None:
        problems["exports create"] = wrong
    assert problems == {}, "\n".join(f"{command}: {why}" for command, why in problems.items())
    counts = Counter({row.words: row.expect for row in ROWS}.values())
    print(
        f"\nreal CLI commands: {counts[WORKS]} work, {counts[NOT_HERE]} not-in-kindgi-dev,"
        f" {counts[ELSEWHERE]} not applicable"
    )
