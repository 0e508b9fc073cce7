"""From an empty folder to a scored version: `kindgi init`, `kindgi dev`, a corrected run, a try."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from devserver import KINDGI, clean_env, start

pytestmark = pytest.mark.slow

AGENT = "demo.tip-picker"


def kindgi(pack: Path, *args: str) -> Any:
    done = subprocess.run([KINDGI, *args], cwd=pack, env=clean_env(), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout) if done.stdout.startswith(("{", "[")) else done.stdout


def test_init_dev_correct_try_and_the_template_test(tmp_path: Path) -> None:
    kindgi(tmp_path, "init", "demo")
    pack = tmp_path / "demo"
    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                            cwd=pack, env=clean_env(), capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "3 passed" in tested.stdout
    assert not (pack / ".kindgi").exists(), "the plugin serves a copy, with its own database"

    server = start(pack)
    try:
        run = kindgi(pack, "runs", "start", f"--agent={AGENT}",
                     '--input={"userMessage":"How often should I water?"}')  # fmt: skip
        assert run["status"] == "completed"
        assert [t["id"] for t in run["output"]["output"]["tips"]] == ["tip-water", "tip-soil"]
        kindgi(pack, "corrections", "add", f"--run={run['id']}", "--item=tip-water",
               "--pointer=/output/tips/0", "--rank=0", "--yes", "--quiet")  # fmt: skip
        kindgi(pack, "corrections", "add", f"--run={run['id']}", "--item=tip-soil",
               "--pointer=/output/tips/1", "--rank=1", "--no", "--quiet")  # fmt: skip

        agent = pack / "agents" / "tip_picker.py"
        agent.write_text(
            agent.read_text()
            .replace('version="0.1.0"', 'version="0.2.0"')
            .replace("the two most relevant tips", "only the best tip")
        )
        versions: list[str] = []
        for _ in range(100):
            listed = kindgi(pack, "agents", "versions", AGENT, "--raw")
            versions = [v["version"] for v in listed["data"]]
            if "0.2.0" in versions:
                break
        assert sorted(versions) == ["0.1.0", "0.2.0"]
        tried = kindgi(pack, "agents", "test-set", "run", f"--agent={AGENT}",
                       "--agent-version=0.2.0", "--wait")  # fmt: skip
        assert tried["status"] == "completed"
        share = tried["result"]["summary"]["metrics"]["weightedYesShare"]
        assert (share["baseline"], share["candidate"], share["n"]) == (0.5, 1, 1)
    finally:
        assert server.stop() == 0
