"""The bundled example packs as git holds them, copied out of the repository for a test.

The guide has a user edit the example (save 0.2.0 into its agent, copy it to `deployed/`),
so no test reads the working tree's `examples/`: each reads git's index (HEAD's files,
unless a change to them is staged with `git add`), so a change under way in the example is
tested once it is staged, and a user's unstaged edits change nothing. A copy of the tree
without `.git` (no user's edits in it) is read as it is.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IGNORED = shutil.ignore_patterns(".kindgi*", "index.json", "__pycache__")


def _git(*args: str, given: bytes | None = None) -> bytes | None:
    """What git printed, or None where there is no git or no repository to ask (a copy of
    the tree without `.git`, which holds no user's edits)."""
    command = ["git", "-c", f"safe.directory={REPO}", "-C", str(REPO), *args]
    try:
        done = subprocess.run(command, input=given, capture_output=True, check=False)
    except FileNotFoundError:
        return None
    return done.stdout if done.returncode == 0 else None


@functools.cache
def _checked_out() -> Path:
    """Every tracked file under `examples/`, written once per process into a temp folder;
    the tree's own files where git can't be asked."""
    root = Path(tempfile.mkdtemp(prefix="kindgi-examples-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    listed = _git("ls-files", "-z", "--", "examples") if (REPO / ".git").exists() else None
    if listed is None:
        shutil.copytree(REPO / "examples", root / "examples", ignore=IGNORED)
        return root / "examples"
    if not listed:
        raise RuntimeError(f"git tracks no examples/ in {REPO}: the tests read them from git")
    if _git("checkout-index", "-z", "--stdin", f"--prefix={root}/", given=listed) is None:
        raise RuntimeError(f"git could not write examples/ from {REPO}'s index")
    return root / "examples"


def example(name: str) -> Path:
    """The committed `examples/<name>`, in a folder this process shares: read it, don't edit it."""
    folder = _checked_out() / name
    if not folder.is_dir():
        raise RuntimeError(f"examples/{name} is not tracked by git in {REPO}")
    return folder


def copy_example(target: Path, name: str = "article-picker") -> Path:
    """A fresh copy of the committed `examples/<name>` at `target`, to edit and serve."""
    shutil.copytree(example(name), target, ignore=IGNORED, dirs_exist_ok=True)
    return target


def copy_examples(target: Path) -> Path:
    """A copy of the whole committed `examples/` folder at `target`."""
    shutil.copytree(_checked_out(), target, ignore=IGNORED, dirs_exist_ok=True)
    return target


QUESTIONS = {
    "I forgot my password and can't sign in.": ["kb-101", "kb-102", "kb-103"],
    "I was charged twice for one order. How do I get my money back?": [
        "kb-201", "kb-203", "kb-202"],
    "My package hasn't arrived yet. Where is it?": ["kb-301", "kb-303", "kb-201"],
}  # fmt: skip
"""The article picker's tutorial questions, each with the articles its 0.1.0 answers."""
CONCISE = (
    "Call acme-ops.search-articles with the customer's question. Answer with only the "
    "articles that answer it, most relevant first: one is often enough."
)
"""The instructions the tutorial saves as 0.2.0."""
