"""Run the fenced blocks of a Markdown page as a reader would, and check what they print.

The convention (what runs, how expected output is written) is in `test_docs.py`'s docstring.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

FENCE = re.compile(
    r"^(?P<fence>`{3,})(?P<info>[^`\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ELLIPSIS = "…"
READY = "serving at"
RELOADED = re.compile(r"✓ loaded|✓ models reloaded|✗ ")
RUNS = ("sh", "python")


class DocsMismatch(AssertionError):
    """A block failed, or printed something other than the page shows."""


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, the words after it, its text and where it starts."""

    lang: str
    words: tuple[str, ...]
    body: str
    line: int

    def has(self, word: str) -> bool:
        return word in self.words

    def option(self, name: str) -> str | None:
        """The value of `name=value` in the info string."""
        for word in self.words:
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
        return None

    @property
    def runs(self) -> bool:
        return (
            self.lang in RUNS
            and not self.has("skip")
            and not self.has("output")
            and (self.option("file") is None)
        )


def blocks(text: str) -> list[Block]:
    """Every fenced block of the page, in order."""
    found = []
    for match in FENCE.finditer(text):
        info = match.group("info").split()
        lang, words = (info[0], tuple(info[1:])) if info else ("", ())
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(lang, words, match.group("body"), line))
    return found


def clean(text: str) -> str:
    """Without colours, trailing spaces, or blank lines at either end."""
    lines = [line.rstrip() for line in ANSI.sub("", text).splitlines()]
    return "\n".join(lines).strip("\n")


def line_pattern(expected: str) -> re.Pattern[str]:
    """An expected line as a regex: `…` is any text within the line."""
    return re.compile(".*".join(re.escape(part) for part in expected.split(ELLIPSIS)) + r"\Z")


def text_matches(expected: str, actual: str) -> bool:
    """Line by line; a line that is only `…` stands for any number of lines."""
    want, got = clean(expected).splitlines(), clean(actual).splitlines()

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i].strip() == ELLIPSIS:
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and bool(line_pattern(want[i]).match(got[j])) and match(i + 1, j + 1)

    return match(0, 0)


def parse_json(text: str) -> Any:
    """One JSON document, or one per line (a list)."""
    try:
        return json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def json_matches(expected: Any, actual: Any) -> bool:
    """Objects by the keys shown; arrays element-wise (a last `"…"` allows more); `"…"` any."""
    return json_difference(expected, actual) is None


def json_difference(expected: Any, actual: Any, at: str = "") -> str | None:
    """Where `actual` first differs from what the page shows (a JSON pointer), or None."""
    if expected == ELLIPSIS:
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return at or "/"
        for key, value in expected.items():
            if key not in actual:
                return f"{at}/{key} (missing)"
            found = json_difference(value, actual[key], f"{at}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return at or "/"
        open_ended = bool(expected) and expected[-1] == ELLIPSIS
        shown = expected[:-1] if open_ended else expected
        if len(actual) < len(shown) or (not open_ended and len(actual) != len(shown)):
            return f"{at} ({len(actual)} elements, the page shows {len(shown)})"
        for index, (e, a) in enumerate(zip(shown, actual, strict=False)):
            found = json_difference(e, a, f"{at}/{index}")
            if found is not None:
                return found
        return None
    if isinstance(expected, str) and ELLIPSIS in expected:
        same = isinstance(actual, str) and bool(line_pattern(expected).match(actual))
    elif isinstance(expected, bool) or isinstance(actual, bool):
        same = expected is actual
    else:
        same = bool(expected == actual)
    return (
        None
        if same
        else f"{at or '/'}: {json.dumps(actual)}, the page shows {json.dumps(expected)}"
    )


def difference(block: Block, actual: str) -> str | None:
    """How `actual` differs from what the output block shows, or None when it matches."""
    if block.lang == "json":
        try:
            return json_difference(parse_json(block.body), parse_json(clean(actual)))
        except ValueError as error:
            return f"not JSON: {error}"
    return None if text_matches(block.body, actual) else "the lines differ"


@dataclass
class Server:
    """A `sh serve` block running in the background: its process, folder and log."""

    process: subprocess.Popen[bytes]
    folder: Path
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """Ctrl+C, as a reader stops it; killed if it doesn't end."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@dataclass
class Session:
    """What outlives a page: the temp copy's root, the environment, the running servers."""

    root: Path
    env: dict[str, str]
    servers: list[Server] = field(default_factory=list)

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers.clear()

    def server_in(self, folder: Path) -> Server | None:
        """The running server started in `folder`."""
        return self.watching(folder, exact=True)

    def watching(self, path: Path, exact: bool = False) -> Server | None:
        """The running server whose folder holds `path` (or is it, with `exact`)."""
        for server in self.servers:
            inside = path == server.folder or (not exact and server.folder in path.parents)
            if inside and server.process.poll() is None:
                return server
        return None


class Page:
    """One page run from the top: one terminal's folder and variables, block after block."""

    def __init__(self, session: Session, path: Path, name: str) -> None:
        self.session = session
        self.path = path
        self.name = name
        self.cwd = session.root
        self.state = session.root / f".docs-{name}.env"
        self.state.write_text("")
        self.last: tuple[Block, str] | None = None

    def fail(self, block: Block, why: str) -> DocsMismatch:
        servers = "".join(
            f"\n--- kindgi dev in {s.folder} (exit {s.process.poll()}) ---\n"
            + "\n".join(s.output().splitlines()[-12:])
            for s in self.session.servers
        )
        return DocsMismatch(
            f"{self.name}:{block.line}: {why}\n--- block ---\n{block.body}{servers}"
        )

    def run(self) -> None:
        for block in blocks(self.path.read_text()):
            self.step(block)

    def step(self, block: Block) -> None:
        if block.has("output"):
            self.check(block)
        elif block.option("file") is not None:
            self.write_file(block)
        elif block.runs and block.lang == "sh":
            if block.has("serve"):
                self.serve(block)
            else:
                self.shell(block)
        elif block.runs and block.lang == "python":
            self.python(block)

    def check(self, block: Block) -> None:
        if self.last is None:
            raise self.fail(block, "an output block with no block run before it")
        ran, printed = self.last
        differs = difference(block, printed)
        if differs is not None:
            raise self.fail(
                block,
                f"the block at line {ran.line} printed something else: {differs}\n"
                f"--- printed ---\n{clean(printed)}\n--- the page shows (the block) ---",
            )
        self.last = None

    def script(self, block: Block) -> str:
        """The block in bash: the page's folder and variables in, and saved again after."""
        state, where = shlex.quote(str(self.state)), shlex.quote(str(self.cwd))
        return (
            f"set -a\n. {state}\ncd {where}\n"
            f"trap 'export -p > {state}.new; pwd > {state}.cwd' EXIT\n"
            f"set -eo pipefail\n{block.body}"
        )

    def shell(self, block: Block) -> None:
        expected = int(block.option("exit") or 0)
        done = subprocess.run(
            ["bash", "-c", self.script(block)], env=self.session.env, capture_output=True,
            text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        self.keep_state()
        if done.returncode != expected:
            raise self.fail(
                block,
                f"exit {done.returncode}, the page expects {expected}\n"
                f"--- stdout ---\n{done.stdout}\n--- stderr ---\n{done.stderr}",
            )
        printed = done.stdout if block.option("exit") is None else done.stdout + done.stderr
        self.last = (block, printed)

    def keep_state(self) -> None:
        new, cwd = Path(f"{self.state}.new"), Path(f"{self.state}.cwd")
        if new.exists():
            new.replace(self.state)
        if cwd.exists():
            self.cwd = Path(cwd.read_text().strip())
            cwd.unlink()

    def serve(self, block: Block, timeout: float = 60.0) -> None:
        folder = self.serve_folder(block)
        running = self.session.server_in(folder)
        if running is not None:
            running.stop()
        log = self.session.root / f".docs-{self.name}-{block.line}.log"
        with log.open("wb") as handle:
            process = subprocess.Popen(
                ["bash", "-c", self.script(block)], env=self.session.env, stdout=handle,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        server = Server(process, folder, log)
        self.session.servers.append(server)
        deadline = time.monotonic() + timeout
        while READY not in server.output():
            if process.poll() is not None or time.monotonic() > deadline:
                raise self.fail(block, f"it did not start serving:\n{server.output()}")
            time.sleep(0.1)
        self.last = (block, server.output())

    def serve_folder(self, block: Block) -> Path:
        """Where a serve block's command runs: the folder its lines before the last `cd` to
        (worked out in a throwaway shell, as the second terminal would)."""
        lines = block.body.rstrip("\n").splitlines()[:-1]
        prefix = Block(block.lang, (), "\n".join([*lines, "pwd"]) + "\n", block.line)
        done = subprocess.run(
            ["bash", "-c", self.script(prefix).replace("trap ", ": ", 1)],
            env=self.session.env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if done.returncode != 0:
            raise self.fail(block, f"its first lines failed:\n{done.stderr}")
        return Path(done.stdout.strip().splitlines()[-1])

    def python(self, block: Block) -> None:
        script = self.session.root / f".docs-{self.name}-{block.line}.py"
        script.write_text(block.body)
        env = {**self.session.env, **self.variables()}
        done = subprocess.run(
            [sys.executable, str(script)], cwd=self.cwd, env=env, capture_output=True,
            text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if done.returncode != 0:
            raise self.fail(block, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
        self.last = (block, done.stdout)

    def variables(self) -> dict[str, str]:
        """The page's shell variables so far."""
        done = subprocess.run(
            ["bash", "-c", f"set -a; . {shlex.quote(str(self.state))}; env -0"],
            env=self.session.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        pairs = (item.split("=", 1) for item in done.stdout.split("\0") if "=" in item)
        return dict(pairs)

    def write_file(self, block: Block, timeout: float = 60.0) -> None:
        target = self.cwd / str(block.option("file"))
        server = self.session.watching(target.resolve())
        seen = len(server.output()) if server else 0
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.body)
        if server is None:
            return
        deadline = time.monotonic() + timeout
        while not RELOADED.search(server.output()[seen:]):
            if time.monotonic() > deadline:
                raise self.fail(block, f"kindgi dev did not reload:\n{server.output()}")
            time.sleep(0.1)


def guide_order(readme: Path, docs: list[Path]) -> list[Path]:
    """The pages the README's guide links, in its order; then the others by name."""
    linked = re.findall(r"\]\(docs/([\w.-]+\.md)\)", readme.read_text())
    by_name = {page.name: page for page in docs}
    ordered = [by_name[name] for name in dict.fromkeys(linked) if name in by_name]
    return ordered + sorted(set(docs) - set(ordered))


def run_pages(session: Session, pages: list[tuple[str, Path]]) -> Iterator[str]:
    """Run each page in turn; yields each name once its page passed."""
    for name, path in pages:
        Page(session, path, name).run()
        yield name
