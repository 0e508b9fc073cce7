"""Start the real `kindgi dev` as a subprocess on a copy of the example pack, on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "article-picker"
KINDGI = str(Path(sys.executable).with_name("kindgi"))
SCRUBBED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "KINDGI_API_")
CLOSE = {"Connection": "close"}
"""Headers for a request on a connection of its own (see `DevServer.poll`)."""


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without provider or API settings, plus `extra`; loopback never proxied."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(extra)
    return env


def copy_pack(target: Path) -> Path:
    """A fresh copy of the example pack, without any state a previous `kindgi dev` left."""
    ignored = shutil.ignore_patterns(".kindgi*", "index.json", "__pycache__")
    shutil.copytree(EXAMPLE, target, ignore=ignored)
    return target


@dataclass
class DevServer:
    """A running `kindgi dev`: its process, pack, URL, token, and how long it took to answer."""

    process: subprocess.Popen[bytes]
    pack: Path
    url: str
    token: str
    log: Path
    start_s: float

    @property
    def pid(self) -> int:
        """The `kindgi dev` process id."""
        return self.process.pid

    def client(self) -> httpx.Client:
        """A keep-alive HTTP client with the token."""
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=120,
            trust_env=False,
        )

    def poll(self, client: httpx.Client, path: str, **params: Any) -> Any:
        """GET `path` on a new connection: a poll's answer time is then not a keep-alive's."""
        response = client.get(path, params=params, headers=CLOSE)
        response.raise_for_status()
        return response.json()

    def stop(self) -> None:
        """SIGTERM, then wait for it (and its pack service) to exit; kill after 20 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(pack: Path, *args: str, env: dict[str, str] | None = None) -> DevServer:
    """`kindgi dev --port 0 ARGS` in `pack`; returns once `.kindgirc.json` is new and `/health` OK.

    `.kindgirc.json` is written once the pack is indexed and its pack service is up, so
    `start_s` is the time from the process's start to a usable, indexed instance.
    """
    rc = pack / ".kindgirc.json"
    before = rc.stat().st_mtime_ns if rc.exists() else None
    log = pack.parent / f"{pack.name}-dev-{time.monotonic_ns()}.log"
    with log.open("wb") as handle:
        started = time.perf_counter()
        process = subprocess.Popen(
            [KINDGI, "dev", "--port", "0", "--path", str(pack), *args],
            cwd=pack,
            env=env or clean_env(),
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    deadline = started + 60
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"kindgi dev exited {process.returncode}:\n{log.read_text()}")
        if rc.exists() and rc.stat().st_mtime_ns != before:
            try:
                data = json.loads(rc.read_text())
                health = httpx.get(data["apiUrl"] + "/health", timeout=2, trust_env=False)
            except (ValueError, KeyError, httpx.HTTPError):
                health = None
            if health is not None and health.status_code == 200:
                elapsed = time.perf_counter() - started
                return DevServer(process, pack, data["apiUrl"], data["token"], log, elapsed)
        time.sleep(0.005)
    process.kill()
    process.wait()
    raise RuntimeError(f"kindgi dev did not answer in 60 s:\n{log.read_text()}")
