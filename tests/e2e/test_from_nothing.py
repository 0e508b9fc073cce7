"""From an empty folder to a scored version: `kindgi init`, `kindgi dev`, a corrected run, a try."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from devserver import clean_env, kindgi, kindgi_json, start
from examples_committed import REPO

pytestmark = pytest.mark.slow

AGENT = "demo.tip-picker"


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
        run = kindgi_json(
            pack,
            "runs",
            "start",
            f"--agent={AGENT}",
            '--input={"userMessage":"How often should I water?"}',
        )
        assert run["status"] == "completed"
        assert [t["id"] for t in run["output"]["output"]["tips"]] == ["tip-water", "tip-soil"]
        kindgi(
            pack,
            "corrections",
            "add",
            f"--run={run['id']}",
            "--item=tip-water",
            "--pointer=/output/tips/0",
            "--rank=0",
            "--yes",
            "--quiet",
        )
        kindgi(
            pack,
            "corrections",
            "add",
            f"--run={run['id']}",
            "--item=tip-soil",
            "--pointer=/output/tips/1",
            "--rank=1",
            "--no",
            "--quiet",
        )

        agent = pack / "agents" / "tip_picker.py"
        agent.write_text(
            agent.read_text()
            .replace('version="0.1.0"', 'version="0.2.0"')
            .replace("the two most relevant tips", "only the best tip")
        )
        versions: list[str] = []
        for _ in range(100):
            listed = kindgi_json(pack, "agents", "versions", AGENT, "--raw")
            versions = [v["version"] for v in listed["data"]]
            if "0.2.0" in versions:
                break
        assert sorted(versions) == ["0.1.0", "0.2.0"]
        tried = kindgi_json(
            pack, "agents", "test-set", "run", f"--agent={AGENT}", "--agent-version=0.2.0", "--wait"
        )
        assert tried["status"] == "completed"
        share = tried["result"]["summary"]["metrics"]["weightedYesShare"]
        assert (share["baseline"], share["candidate"], share["n"]) == (0.5, 1, 1)
    finally:
        assert server.stop() == 0


def test_the_template_test_passes_after_the_guides_own_steps(tmp_path: Path) -> None:
    guide = (REPO / "docs" / "your-own-pack.md").read_text()
    saved = re.search(r"```python file=agents/tip_picker.py\n(.*?)```", guide, re.S)
    assert saved is not None and 'version="0.2.0"' in saved.group(1)
    kindgi(tmp_path, "init", "acme.garden")
    pack = tmp_path / "garden"
    (pack / "agents" / "tip_picker.py").write_text(saved.group(1))

    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                            cwd=pack, env=clean_env(), capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "3 passed" in tested.stdout
