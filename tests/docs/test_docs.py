"""The docs can't drift: every page's commands run as written and print what the page shows.

The convention a page is written to:

- Every page starts in a temp folder holding a copy of git's `examples/`, as the repo's
  root does (start.md copies the example to `article-picker/` there, as a user does), with
  no shell variables. Within a page the folder and the variables carry over from block to
  block, as in one terminal.
- `kindgi` and `python3` are this venv's (first on PATH): pages write `kindgi ...`. No model
  or API keys are set, so the example's function models answer. `KINDGI_DEV_PORT=0`, so
  `kindgi dev` takes a free port: pages never write a port; the address is in
  `.kindgirc.json`.
- Pages run in the order the README's guide links them, then the other pages by name, then
  README.md. Servers stay up across pages: the tutorial is one story on one `kindgi dev`.
- Blocks, by the info string after the backticks:
  `sh` runs with `bash -e -o pipefail`; `sh exit=N` must end with exit code N (its stdout
  and stderr are compared); `sh serve` is a second terminal: started in the background,
  ready once it prints `serving at`, stopped at the end (or when another `sh serve` starts
  in the same folder); `python` runs as a script in the page's folder with its shell
  variables in the environment; `<lang> file=<path>` is written to that path (then, if a
  `kindgi dev` watches the folder, the next `✓ loaded` or `✗` line is awaited);
  `<lang> output` is what the block before it prints; `sh skip`/`python skip` and every other
  language are shown only.
- Output: `json output` compares parsed JSON (one document or one per line): objects by the
  keys shown, arrays element by element (a last `"…"` allows more), `"…"` is any value and
  `…` inside a string any text. Other output blocks compare line by line: `…` is any text
  within a line, a line of only `…` any number of lines. Numbers are compared exactly.

Run one page (with the pages before it) by name: `pytest tests/docs -k try-a-version`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from examples_committed import copy_examples
from mdrun import Page, Session, guide_order

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SCRUBBED = ("KINDGI_API_URL", "KINDGI_API_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL",
            "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "KINDGI_ENV", "NODE_ENV",
            "KINDGI_LOG_LEVEL")  # fmt: skip
PAGES = [
    *((f"docs/{path.name}", path)
      for path in guide_order(REPO / "README.md", list((REPO / "docs").glob("*.md")))),
    ("README.md", REPO / "README.md"),
]  # fmt: skip


class DocsRun:
    """The pages run so far, on one temp copy, and whether one failed."""

    def __init__(self, root: Path) -> None:
        copy_examples(root / "examples")
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        env["KINDGI_DEV_PORT"] = "0"
        self.session = Session(root, env)
        self.done: list[str] = []
        self.failed: str | None = None

    def through(self, name: str) -> None:
        """Run every page up to and including `name`, each once."""
        for page_name, path in PAGES:
            if page_name in self.done:
                if page_name == name:
                    return
                continue
            if self.failed is not None:
                pytest.fail(f"{self.failed} failed before {name} could run")
            try:
                Page(self.session, path, page_name.replace("/", "-")).run()
            except BaseException:
                self.failed = page_name
                raise
            self.done.append(page_name)
            if page_name == name:
                return


@pytest.fixture(scope="module")
def docs_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsRun]:
    run = DocsRun(tmp_path_factory.mktemp("docs"))
    yield run
    run.session.stop()


@pytest.mark.parametrize("name", [name for name, _ in PAGES], ids=lambda n: Path(n).stem)
def test_page(docs_run: DocsRun, name: str) -> None:
    docs_run.through(name)
