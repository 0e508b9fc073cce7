"""Indexing the pack with the `kindgi` SDK, in the pack's own interpreter.

kindgi dev never imports pack code: a syntax check compiles every `.py` file, then
`python -m kindgi.pack index` (a child process) imports the pack and writes the index
into a staging file, which is renamed to `.kindgi/dev/index.json` once it is good.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from ..domain.errors import KindgiError
from ..domain.json import JSON, JSONObject
from ..domain.narrow import object_of, object_or_none, objects_of, text_or_none, whole_or_none

INDEX_TIMEOUT_S = 120.0
SKIPPED_DIRS = frozenset({"__pycache__", "venv", "site-packages", "node_modules"})
"""Folders never read as pack code (dot folders such as `.venv` and `.kindgi` are skipped too)."""
OWN_FILES = frozenset({".kindgirc.json", ".kindgirc.json.tmp"})
"""kindgi dev's own files in the pack's folder: rewritten at every start (its port, its
token), so an index key that read them would never find the index of the last start."""

_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_TOML_AT = re.compile(r"at line (?P<line>\d+), column (?P<col>\d+)")


class PackLoadFailed(KindgiError):
    """The pack could not be loaded."""

    status = 422
    code = "pack-load-failed"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        super().__init__(message, code=code, file=file, line=line, col=col)
        self.file = file
        self.line = line
        self.col = col

    @property
    def where(self) -> str | None:
        """`file:line:col`, `file:line` or `file`, as far as it is known."""
        if self.file is None:
            return None
        parts = [self.file, *(str(n) for n in (self.line, self.col) if n is not None)]
        return ":".join(parts)

    def describe(self) -> str:
        """`<where>: <message>`, or the message alone when no file is known."""
        return f"{self.where}: {self.message}" if self.where else self.message


@dataclass(frozen=True)
class PackIndex:
    """One successful index of the pack: its identity and primitives as `index.json` lists them."""

    pack_id: str
    pack_version: str
    artifact_version: str
    tools: list[JSONObject]
    agents: list[JSONObject]
    flows: list[JSONObject]
    guardrails: list[JSONObject]
    file_errors: list[JSONObject]
    path: Path
    warnings: list[JSONObject]

    @property
    def primitive_count(self) -> int:
        """Tools, guardrails, agents and flows together."""
        return len(self.tools) + len(self.guardrails) + len(self.agents) + len(self.flows)

    def problem(self, pack_dir: Path) -> PackLoadFailed | None:
        """The first file that failed to index, as an error; None when every file indexed."""
        if not self.file_errors:
            return None
        return file_error(self.file_errors[0], pack_dir)


def dev_dir(pack_dir: Path) -> Path:
    """`.kindgi/dev/` in the pack: the staging and published index live here."""
    return pack_dir / ".kindgi" / "dev"


def index_path(pack_dir: Path) -> Path:
    """The published index, the one the pack service serves."""
    return dev_dir(pack_dir) / "index.json"


def staging_path(pack_dir: Path) -> Path:
    """Where a new index is written before it is known to be good."""
    return dev_dir(pack_dir) / "index.next.json"


def pack_python(pack_dir: Path) -> str:
    """The pack's interpreter: its `.venv` when there is one, else the one running kindgi dev."""
    candidate = pack_dir / ".venv" / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


def index_command(pack_dir: Path, interpreter: str) -> list[str]:
    """The SDK's indexer, writing into the staging file."""
    return [
        interpreter,
        *("-m", "kindgi.pack", "index", "--pack-dir", str(pack_dir)),
        *("--output", str(staging_path(pack_dir)), "--json"),
        *("--artifact-version", next_artifact_version(index_path(pack_dir))),
    ]


def cache_path(pack_dir: Path) -> Path:
    """The last good index with the key of the files it was made from (`index_key`)."""
    return dev_dir(pack_dir) / "index-cache.json"


def index_key(pack_dir: Path, interpreter: str) -> str:
    """What an index depends on: the content of every file of the pack (dot folders,
    caches, environments and kindgi dev's own `.kindgirc.json` aside), the interpreter,
    and the SDK that indexes (`sdk_stamp`)."""
    digest = hashlib.sha256()
    python = Path(interpreter)
    try:
        stamp = python.stat().st_mtime_ns
    except OSError:
        stamp = 0
    digest.update(f"{python.resolve()}\0{stamp}\0{sdk_stamp(interpreter)}\0".encode())
    for folder, files in pack_walk(pack_dir):
        for name in sorted(set(files) - OWN_FILES):
            path = folder / name
            with contextlib.suppress(OSError):
                content = path.read_bytes()
                digest.update(f"{path.relative_to(pack_dir)}\0{len(content)}\0".encode())
                digest.update(content)
    return digest.hexdigest()


def sdk_stamp(interpreter: str) -> str:
    """The `kindgi` SDK the interpreter indexes with: each of its installed metadata folders
    (`kindgi-<version>.dist-info`) by name and time, in the pack's `.venv` when it indexes
    with that one, else on kindgi dev's own path. Read from the folders, not through
    `importlib.metadata`, which sees kindgi dev's own environment only: an SDK upgraded in
    the pack's `.venv` would have found the index its old one made."""
    if interpreter == sys.executable:
        folders = [Path(entry) for entry in sys.path if entry]
    else:
        folders = sorted(Path(interpreter).parent.parent.glob("lib/python*/site-packages"))
    found = []
    for folder in folders:
        for info in folder.glob("kindgi-*.dist-info"):
            with contextlib.suppress(OSError):
                found.append(f"{info}\0{info.stat().st_mtime_ns}")
    return "\0".join(sorted(found))


def cached_index(pack_dir: Path, key: str) -> JSONObject | None:
    """The cached index and the indexer's report when made from these very files."""
    try:
        cached: JSON = json.loads(cache_path(pack_dir).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return cached if isinstance(cached, dict) and cached.get("key") == key else None


def remember(pack_dir: Path, key: str, index: PackIndex, report: JSONObject) -> None:
    """Keep a good index (one every file indexed in) for the next start on the same files."""
    if index.file_errors:
        return
    data = json.loads(index.path.read_text("utf-8"))
    entry = {"key": key, "index": data, "report": report}
    temporary = cache_path(pack_dir).with_suffix(".next")
    temporary.write_text(json.dumps(entry), "utf-8")
    os.replace(temporary, cache_path(pack_dir))


async def index_pack(
    pack_dir: Path,
    *,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
    publish: bool = True,
    skip: Iterable[Path] = (),
    reuse: bool = False,
) -> PackIndex:
    """Syntax-check and index the pack; `PackLoadFailed` says which file and line failed.
    With `reuse` (at start), the last good index made from these very files, as it was
    (its artifact version too), when there is one; a save always indexes anew.

    With `publish` the staging file is renamed to `index.json` at once; without, the caller
    calls `publish_index` when the new index serves. `skip`: files left out of the syntax
    check (the function-models file, which kindgi dev loads and reports on itself).
    """
    pack_dir = pack_dir.resolve()
    interpreter = python or pack_python(pack_dir)
    staging = staging_path(pack_dir)
    staging.parent.mkdir(parents=True, exist_ok=True)
    key = index_key(pack_dir, interpreter)
    cached = cached_index(pack_dir, key) if reuse else None
    if cached is not None:  # these files indexed (and compiled) before: the same index
        staging.write_text(json.dumps(cached["index"]), "utf-8")
        index = index_of(object_of(cached["report"]), staging)
        return publish_index(index, pack_dir) if publish else index
    indexer = _run(index_command(pack_dir, interpreter), pack_dir, env)
    # The syntax check and the indexer run side by side; a syntax error is the one reported.
    syntax, indexed = await asyncio.gather(
        check_syntax(pack_dir, interpreter, skip), indexer, return_exceptions=True
    )
    if isinstance(syntax, BaseException):
        raise syntax
    if isinstance(indexed, BaseException):
        raise indexed
    stdout, stderr, returncode = indexed
    report = read_outcome(stdout, stderr, returncode, pack_dir)
    index = index_of(report, staging)
    remember(pack_dir, key, index, report)
    return publish_index(index, pack_dir) if publish else index


def publish_index(index: PackIndex, pack_dir: Path) -> PackIndex:
    """Rename a staged index to `index.json` (atomically) and return it with its new path."""
    published = index_path(pack_dir.resolve())
    if index.path != published:
        os.replace(index.path, published)
    return replace(index, path=published)


def next_artifact_version(current: Path) -> str:
    """`YYYYMMDD.N`, N one more than the published index's when it is from today."""
    today = datetime.now(UTC).strftime("%Y%m%d")
    try:
        previous = str(json.loads(current.read_text("utf-8")).get("artifactVersion", ""))
    except (OSError, ValueError, AttributeError):
        previous = ""
    day, _, count = previous.partition(".")
    return f"{today}.{int(count) + 1 if day == today and count.isdigit() else 1}"


async def check_syntax(pack_dir: Path, python: str, skip: Iterable[Path] = ()) -> None:
    """Compile every `.py` of the pack; `PackLoadFailed` (`syntax-error`) at the first bad one.

    Compiled here when the pack runs on this interpreter, else by the pack's own, whose
    grammar may be newer.
    """
    skipped = {path.resolve() for path in skip}
    files = [str(p.relative_to(pack_dir)) for p in pack_files(pack_dir) if p not in skipped]
    if Path(python).resolve() == Path(sys.executable).resolve():
        found = await asyncio.to_thread(_first_syntax_error, pack_dir, files)
    else:
        found = await _syntax_in_child(pack_dir, python, files)
    if found is not None:
        raise PackLoadFailed(
            f"SyntaxError: {found['msg']}",
            code="syntax-error",
            file=text_or_none(found["file"]),
            line=whole_or_none(found.get("line")),
            col=whole_or_none(found.get("col")),
        )


def pack_walk(pack_dir: Path) -> Iterator[tuple[Path, list[str]]]:
    """Each folder of the pack that may hold pack files, in sorted order, with its files'
    names: dot folders (the store's `.kindgi/`, `.venv`), caches and environments aside."""
    for root, dirs, files in os.walk(pack_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        yield Path(root), files


def pack_files(pack_dir: Path) -> Iterator[Path]:
    """Every `.py` file of the pack, skipping dot folders, caches and environments."""
    for folder, files in pack_walk(pack_dir):
        for name in sorted(files):
            if name.endswith(".py"):
                yield folder / name


def _first_syntax_error(pack_dir: Path, files: list[str]) -> JSONObject | None:
    """The first file (of `files`, relative to the pack) that doesn't compile, and where."""
    for rel in files:
        try:
            source = (pack_dir / rel).read_bytes()
            compile(source, rel, "exec", dont_inherit=True)
        except SyntaxError as error:
            return {"file": rel, "line": error.lineno, "col": error.offset, "msg": error.msg}
        except (OSError, ValueError):
            continue
    return None


_CHECK_SCRIPT = """
import json, sys
for rel in json.loads(sys.stdin.read()):
    try:
        compile(open(rel, "rb").read(), rel, "exec", dont_inherit=True)
    except SyntaxError as e:
        print(json.dumps({"file": rel, "line": e.lineno, "col": e.offset, "msg": e.msg}))
        break
    except (OSError, ValueError):
        pass
"""


async def _syntax_in_child(pack_dir: Path, python: str, files: list[str]) -> JSONObject | None:
    """`_first_syntax_error`, run by another interpreter (the pack's own grammar)."""
    process = await asyncio.create_subprocess_exec(
        python,
        "-c",
        _CHECK_SCRIPT,
        cwd=pack_dir,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate(json.dumps(files).encode())
    if process.returncode != 0:
        raise PackLoadFailed(
            f"{python} could not check the pack's syntax: {_tail(err)}", code="interpreter-failed"
        )
    line = out.decode("utf-8", "replace").strip()
    return object_or_none(json.loads(line)) if line else None


async def _run(
    command: list[str], cwd: Path, env: Mapping[str, str] | None
) -> tuple[str, str, int]:
    """Run the indexer child; its stdout, stderr and exit code."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), INDEX_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise PackLoadFailed(
            f"indexing took longer than {INDEX_TIMEOUT_S:.0f} s (does a module block on import?)",
            code="index-timeout",
        ) from None
    except asyncio.CancelledError:
        process.kill()
        await process.wait()
        raise
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), process.returncode or 0


def read_outcome(stdout: str, stderr: str, returncode: int, pack_dir: Path) -> JSONObject:
    """The indexer's report from its one JSON line (pack code may print before it), or the
    error it gave."""
    outcome = None
    for line in reversed(stdout.splitlines()):
        if line.startswith('{"kind":'):
            outcome = object_or_none(json.loads(line))
            break
    if outcome is None:
        raise PackLoadFailed(
            f"the indexer failed (exit {returncode}): {_tail(stderr) or 'no output'}",
            code="indexer-failed",
        )
    if outcome["kind"] == "err":
        raise _indexer_error(object_of(outcome["error"]), pack_dir)
    return object_of(outcome["value"])


def index_of(report: JSONObject, staging: Path) -> PackIndex:
    """The index written into `staging`, with what the indexer reported of it."""
    data = object_of(json.loads(staging.read_text("utf-8")))
    return PackIndex(
        pack_id=str(data["packId"]),
        pack_version=str(data["packVersion"]),
        artifact_version=str(data["artifactVersion"]),
        tools=objects_of(data.get("tools")),
        agents=objects_of(data.get("agents")),
        flows=objects_of(data.get("flows")),
        guardrails=objects_of(data.get("guardrails")),
        file_errors=objects_of(report.get("fileErrors")),
        path=staging,
        warnings=objects_of(report.get("warnings")),
    )


def _indexer_error(error: JSONObject, pack_dir: Path) -> PackLoadFailed:
    """A fatal indexer error (bad config, nothing discovered, …) with its file when named."""
    message = str(error.get("message", "the indexer failed"))
    found = _TOML_AT.search(message)
    return PackLoadFailed(
        message,
        code=str(error.get("code", "indexer-failed")),
        file=_relative(error.get("filePath"), pack_dir),
        line=int(found["line"]) if found else None,
        col=int(found["col"]) if found else None,
    )


def file_error(error: JSONObject, pack_dir: Path) -> PackLoadFailed:
    """One file the indexer could not read, with the line of that file the stack names."""
    rel = _relative(error.get("filePath"), pack_dir)
    line = None
    stack = str(object_of(error.get("cause")).get("stack", ""))
    if rel is not None:
        for match in _STACK_LINE.finditer(stack):
            if Path(match["file"]).resolve() == (pack_dir / rel).resolve():
                line = int(match["line"])
    message = str(error.get("message", ""))
    for prefix in (f"Failed to import {rel}: ", f"{rel}: "):
        message = message.removeprefix(prefix)
    return PackLoadFailed(message, code=str(error.get("code", "")), file=rel, line=line)


def _relative(path: JSON, pack_dir: Path) -> str | None:
    """A path the indexer named, relative to the pack when it lies inside it."""
    if not isinstance(path, str) or not path:
        return None
    try:
        return str(Path(path).resolve().relative_to(pack_dir.resolve()))
    except ValueError:
        return path


def _tail(text: str | bytes, lines: int = 5) -> str:
    """The last lines of a child's output, on one line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return " | ".join(line for line in text.strip().splitlines()[-lines:] if line.strip())
