"""Start the real `kindgi dev` as a subprocess on a pack folder, as a user would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from examples_committed import copy_example as copy_example  # re-exported for the e2e tests

KINDGI = str(Path(sys.executable).with_name("kindgi"))
SCRUBBED = ("KINDGI_API_URL", "KINDGI_API_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL",
            "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "KINDGI_ENV", "NODE_ENV")  # fmt: skip


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any API or provider settings, so nothing leaves the machine."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(extra)
    return env


def minimal_pack(target: Path) -> Path:
    """A pack with a valid `[tool.kindgi.pack]` and nothing in it."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "pyproject.toml").write_text(
        '[project]\nname = "empty"\nversion = "0.1.0"\n\n'
        '[tool.kindgi.pack]\nid = "demo.empty"\nversion = "0.1.0"\n'
    )
    return target


@dataclass
class DevServer:
    """A running `kindgi dev`: its process, pack, URL and token."""

    process: subprocess.Popen[str]
    pack: Path
    url: str
    token: str
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal it and wait for it to exit; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                return self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()

    def output(self) -> str:
        """What it printed so far (stderr and stdout)."""
        return self.log.read_text()

    def client(self) -> httpx.Client:
        """An HTTP client with the token."""
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=30
        )


def start(
    pack: Path, *args: str, timeout: float = 30.0, env: dict[str, str] | None = None
) -> DevServer:
    """Start `kindgi dev --port 0` in the pack and wait until `/health` answers."""
    rc = pack / ".kindgirc.json"
    before = rc.stat().st_mtime_ns if rc.exists() else None
    log = pack.parent / f"{pack.name}-dev-{time.monotonic_ns()}.log"
    handle = log.open("w")
    process = subprocess.Popen(
        [KINDGI, "dev", "--port", "0", *args], cwd=pack, env=env or clean_env(),
        stdout=handle, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"kindgi dev exited {process.returncode}:\n{log.read_text()}")
        if rc.exists() and rc.stat().st_mtime_ns != before:
            try:
                data = json.loads(rc.read_text())
                if httpx.get(data["apiUrl"] + "/health", timeout=2).status_code == 200:
                    return DevServer(process, pack, data["apiUrl"], data["token"], log)
            except (ValueError, KeyError, httpx.HTTPError):
                pass
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"kindgi dev did not answer in {timeout} s:\n{log.read_text()}")


def kindgi(
    where: DevServer | Path,
    *args: str,
    code: int | None = 0,
    env: dict[str, str] | None = None,
    binary: str | Path = KINDGI,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """`kindgi …` (ours, or the CLI at `binary`) typed in a pack folder, or a server's (where
    it finds `.kindgirc.json`), with no API or provider settings but `env`; expects exit
    `code` unless it is None."""
    cwd = where.pack if isinstance(where, DevServer) else where
    done = subprocess.run([str(binary), *args], cwd=cwd, env=clean_env(**(env or {})),
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip
    if code is not None:
        assert done.returncode == code, done.stdout + done.stderr
    return done


def kindgi_json(where: DevServer | Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """The JSON a `kindgi …` that exits 0 prints."""
    return json.loads(kindgi(where, *args, env=env).stdout)
