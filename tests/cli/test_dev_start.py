"""`kindgi dev` spawns the pack service before it imports its app, and a second start on the
same files serves the index it kept without indexing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

START = """
import json, sys
from pathlib import Path
from kindgi_dev.cli import dev

def services():
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"kindgi.pack" in command and b"serve" in command:
            found.append(int(stat.parent.name))
    return found

import os
real = dev.prestart

def early(*args, **kwargs):
    started = real(*args, **kwargs)
    seen = {"app imported": "kindgi_dev.app" in sys.modules, "services": len(services())}
    print(json.dumps(seen), file=sys.stderr)
    return started

dev.prestart = early
sys.argv = ["kindgi", "dev", "--port", "0", "--no-watch", "--path", sys.argv[1]]
from kindgi_dev.cli.main import main
main()
"""


def start(pack: Path) -> tuple[dict[str, object], str]:
    """One `kindgi dev --no-watch` on `pack`: what was true when it spawned, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", START, str(pack)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    return json.loads(first), done.stderr


def test_the_service_is_spawned_before_the_app_is_imported_and_a_warm_start_reuses_the_index(
    make_pack: Callable[..., Path],
) -> None:
    pack = make_pack()
    cold, printed = start(pack)
    assert cold == {"app imported": False, "services": 0}  # the indexer runs first
    assert "  ✓ pack: demo.hello 1.0.0 indexed — 1 tools, 1 agents, 0 flows in " in printed
    assert "  ✓ pack service on 127.0.0.1:" in printed

    warm, printed = start(pack)
    assert warm == {"app imported": False, "services": 1}
    cached = "from the index cache (no file changed) — 1 tools, 1 agents, 0 flows in "
    assert f"  ✓ pack: demo.hello 1.0.0 {cached}" in printed
    assert "  ✓ pack service on 127.0.0.1:" in printed
    rc = json.loads((pack / ".kindgirc.json").read_text())
    assert rc["packServicePort"] > 0
