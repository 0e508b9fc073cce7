"""The real CLI (PyPI `kindgi-cli` 0.1.10) against `kindgi dev`, its answers parsed.

It is installed once into a venv kept between runs (`KINDGI_CLI_VENV`, default
`~/.cache/kindgi-dev/kindgi-cli-0.1.10`); CI makes it on the first run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from devserver import DevServer, clean_env, copy_example, start

from kindgi_dev import __version__

pytestmark = pytest.mark.slow

VERSION = "0.1.10"
AGENT = "acme-ops.article-picker"
PASSWORD = "I forgot my password and can't sign in."
RUNTIME_CHECKS = {"api-key": "pass", "console-sign-in": "pass", "mcp-headers": "pass",
                  "runtime": "pass", "provider": "pass", "erasures": "skip"}  # fmt: skip


@pytest.fixture(scope="module")
def real_kindgi() -> Path:
    """The real CLI's `kindgi`, installed into the cached venv when it isn't there yet."""
    default = Path.home() / ".cache" / "kindgi-dev" / f"kindgi-cli-{VERSION}"
    venv = Path(os.environ.get("KINDGI_CLI_VENV", default))
    binary = venv / "bin" / "kindgi"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"kindgi-cli=={VERSION}"],
                       check=True, timeout=600)  # fmt: skip
    return binary


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    running = start(copy_example(tmp_path_factory.mktemp("real-cli") / "article-picker"))
    yield running
    running.stop()


def real(binary: Path, server: DevServer, *args: str, code: int = 0) -> Any:
    """Run the real CLI in the pack folder (it finds `.kindgirc.json` there); its JSON."""
    done = subprocess.run([str(binary), *args], cwd=server.pack, env=clean_env(),
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == code, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_version_whoami_and_doctor(real_kindgi: Path, server: DevServer) -> None:
    version = real(real_kindgi, server, "version")
    assert (version["cli"], version["apiUrl"]) == (VERSION, server.url)
    assert version["api"] == {"title": "kindgi dev", "version": __version__}
    assert "apiUnreachable" not in version

    whoami = real(real_kindgi, server, "auth", "whoami")
    rc = json.loads((server.pack / ".kindgirc.json").read_text())
    assert whoami["ok"] is True
    assert whoami["identity"]["tenantId"] == rc["tenantId"]
    assert whoami["identity"]["userId"] == rc["userId"]
    assert whoami["identity"]["principal"] == {"kind": "user", "id": rc["userId"]}

    doctor = subprocess.run([str(real_kindgi), "doctor", "--json"], cwd=server.pack,
                            env=clean_env(), capture_output=True, text=True,
                            timeout=180)  # fmt: skip
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert {k: checks[k]["status"] for k in RUNTIME_CHECKS} == RUNTIME_CHECKS
    assert checks["provider"]["message"] == "A provider is registered: function."
    assert checks["mcp-headers"]["message"] == "No MCP endpoint is registered."


def test_console_finds_the_console_and_its_link_logs_in(
    real_kindgi: Path, server: DevServer
) -> None:
    found = real(real_kindgi, server, "console", "--no-open", "--json")
    assert found == {"url": f"{server.url}/console/", "opened": False}
    link = re.search(r"Console\s+(http://\S+)", server.output())
    assert link is not None
    with httpx.Client() as browser:
        assert browser.get(link.group(1), follow_redirects=False).status_code == 303
        assert browser.get(f"{server.url}/console/runs").status_code == 200


def test_projects_agents_runs_judgments_suites_and_eval_runs(
    real_kindgi: Path, server: DevServer
) -> None:
    project = real(real_kindgi, server, "projects", "get-default")
    assert project["isDefault"] is True
    agents = real(real_kindgi, server, "agents", "list")
    assert AGENT in [a["id"] for a in agents["data"]]

    run = real(real_kindgi, server, "runs", "start", f"--agent={AGENT}",
               f"--input={json.dumps({'userMessage': PASSWORD})}")  # fmt: skip
    assert run["status"] == "completed"
    picked = [a["id"] for a in run["output"]["output"]["articles"]]
    assert picked == ["kb-101", "kb-102", "kb-103"]

    judged = real(real_kindgi, server, "judgments", "add", f"--run={run['id']}", "--item=kb-101",
                  "--pointer=/output/articles/0", "--rank=0", "--yes")  # fmt: skip
    assert (judged["item"]["key"], judged["verdict"]) == ("kb-101", "yes")
    with server.client() as http:
        for rank in (1, 2):
            item = {"key": picked[rank], "pointer": f"/output/articles/{rank}", "rank": rank}
            answer = http.post("/v1/judgments", json={"runId": run["id"], "verdict": "no",
                                                       "item": item})  # fmt: skip
            assert answer.status_code == 201, answer.text
    listed = real(real_kindgi, server, "judgments", "list", f"--run={run['id']}")
    assert sorted((j["item"]["key"], j["verdict"]) for j in listed["data"]) == [
        ("kb-101", "yes"), ("kb-102", "no"), ("kb-103", "no")]  # fmt: skip

    built = real(real_kindgi, server, "eval-suites", "from-judgments", "acme.picks",
                 "--suite-version=1.0.0", f"--project={project['id']}",
                 f"--agent={AGENT}")  # fmt: skip
    assert (built["suiteId"], built["caseCount"]) == ("acme.picks", 1)

    tried = real(real_kindgi, server, "eval-runs", "start", "acme.picks",
                 f"--project={project['id']}", f"--agent={AGENT}", "--agent-version=0.1.0",
                 "--wait")  # fmt: skip
    assert tried["status"] == "completed"
    share = tried["result"]["summary"]["metrics"]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))

    start = ("eval-runs", "start", "acme.picks", f"--project={project['id']}",
             f"--agent={AGENT}", "--agent-version=0.1.0")  # fmt: skip
    against = real(real_kindgi, server, *start, f"--baseline={AGENT}@0.1.0", "--wait")
    assert against["result"]["summary"]["baseline"] == {
        "kind": "version", "agentId": AGENT, "version": "0.1.0", "via": "explicit"}  # fmt: skip
    live = real(real_kindgi, server, *start, "--baseline=live",
                f"--baseline-project={project['id']}", "--dry-run")  # fmt: skip
    assert live["dryRunPreview"]["replays"] == {"candidate": 1, "baseline": 1}


def test_the_real_cli_kindgi_dev_finds_ours_running_and_answering(
    real_kindgi: Path, server: DevServer
) -> None:
    """Its `kindgi dev` reads our lock and probes `/ready` without a token (issue 22)."""
    done = subprocess.run([str(real_kindgi), "dev"], cwd=server.pack, env=clean_env(),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"already running for this pack (pid {server.process.pid}" in done.stderr
    assert f"API      {server.url}" in done.stderr
    assert "isn't answering" not in done.stderr
