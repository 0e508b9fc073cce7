"""A user who follows the guide inside the repository breaks no test.

The guide saves 0.2.0 into the example's agent and copies the pack to `deployed/`; a user
who does so in `examples/article-picker` itself, rather than in the copy the guide makes,
changes a tracked file. The tests read git's copy of the example (`examples_committed`), so
they pass on such a tree: this runs the tests that read the example on a clone of the repo
with those edits made, and checks that no test builds a path into the working tree's copy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from devserver import clean_env
from examples_committed import REPO, copy_examples

READERS = ("tests/runtime/test_agent_turn.py", "tests/e2e/test_tutorial.py")
"""Tests that fail on an edited example when they read it: in-process, and through a server."""
INTO_THE_TREE = re.compile(r"""(parents\[\d+\]|\bREPO|\bROOT)\s*/\s*["']examples\b""")
SAVED = re.compile(r"```python file=article-picker/agents/article_picker.py\n(.*?)```", re.S)


def edited_clone(root: Path) -> Path:
    """The repo's tests beside git's example, then the guide's edits made in the example."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    copy_examples(root / "examples")
    subprocess.run(["git", "-C", str(root), "add", "examples"], check=True)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "tests", root / "tests",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))  # fmt: skip
    example = root / "examples" / "article-picker"
    saved = SAVED.search((REPO / "docs" / "try-a-version.md").read_text())
    assert saved is not None, "try-a-version.md no longer saves the agent file"
    (example / "agents" / "article_picker.py").write_text(saved.group(1))
    shutil.copytree(example, root / "deployed")
    return root


@pytest.mark.slow
def test_the_tests_that_read_the_example_pass_after_the_guides_edits(tmp_path: Path) -> None:
    clone = edited_clone(tmp_path / "repo")
    agent = "examples/article-picker/agents/article_picker.py"
    assert 'version="0.2.0"' in (clone / agent).read_text()
    committed = subprocess.run(["git", "-C", str(clone), "show", f":{agent}"],
                               capture_output=True, text=True, check=True)  # fmt: skip
    assert 'version="0.1.0"' in committed.stdout

    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             *READERS], cwd=clone, env=clean_env(), capture_output=True,
                            text=True, timeout=600)  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert " failed" not in tested.stdout and " passed" in tested.stdout.splitlines()[-1]


def test_no_test_builds_a_path_into_the_working_trees_examples() -> None:
    named = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        if path.name != "examples_committed.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if INTO_THE_TREE.search(line)
    ]
    assert named == [], "read the example through examples_committed instead"
