"""The work every tool of `peers.py` does, and how a peer is run with no network but loopback.

A case is one of the tutorial's questions with the search result its run recorded and the
article its correction marked right (the first one; the others were marked wrong). The
candidate is the example's deterministic function model at 0.1.0: the first three articles
of the recorded search. A case's score is the share of the answer's articles marked right.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import seed
from devserver import EXAMPLE

PICKED = 3
"""How many articles 0.1.0's instructions ask for."""
LOOPBACK_ONLY = 'ip link set lo up && exec "$@"'
"""Run inside `unshare -n`: bring the namespace's loopback up, then become the command."""


def _help_centre() -> ModuleType:
    """The example's help-centre search, loaded from its file (the pack is not a package)."""
    path = EXAMPLE / "tools" / "_help_centre.py"
    spec = importlib.util.spec_from_file_location("peers_help_centre", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def cases(count: int) -> list[dict[str, Any]]:
    """`count` cases, the tutorial's questions in turn, as the benchmark's runs record them."""
    search = _help_centre().search
    templates = []
    for question in seed.QUESTIONS:
        found = [{"id": a.id, "title": a.title, "score": s} for a, s in search(question)]
        templates.append({"question": question, "found": found, "right": [found[0]["id"]]})
    return [{"id": f"case-{n}", **templates[n % len(templates)]} for n in range(count)]


def write_cases(folder: Path, count: int) -> Path:
    """The cases as one JSON file every peer reads."""
    path = folder / f"cases-{count}.json"
    path.write_text(json.dumps(cases(count)))
    return path


@dataclass(frozen=True)
class Isolated:
    """What one command run in its own network namespace cost."""

    seconds: float
    peak_mb: float
    stdout: str


def run_isolated(
    command: list[str], cwd: Path, env: dict[str, str], timeout_s: float = 1800
) -> Isolated:
    """`command` inside a new network namespace whose only interface is loopback.

    Its wall time, and its peak resident memory from `wait4` (the largest of the command
    and the children it waited for). Raises with its output when it fails.
    """
    log = cwd / f"isolated-{time.monotonic_ns()}.log"
    argv = ["unshare", "-n", "--", "sh", "-c", LOOPBACK_ONLY, "sh", *command]
    with log.open("wb") as err:
        began = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err
        )
        assert process.stdout is not None
        stdout = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0 or seconds > timeout_s:
        raise RuntimeError(
            f"{command[0]} exited {process.returncode}:\n{stdout[-2000:]}\n"
            f"{log.read_text()[-3000:]}"
        )
    return Isolated(seconds, usage.ru_maxrss / 1024, stdout)
