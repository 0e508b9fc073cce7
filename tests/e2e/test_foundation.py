"""Issue 2 end to end: the real `kindgi dev` and the official client find each other."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from devserver import KINDGI, clean_env, minimal_pack, start
from kindgi.client import AuthError, Kindgi, NotFoundError

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]


def test_official_client_finds_kindgi_dev_through_kindgirc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = minimal_pack(tmp_path / "pack")
    server = start(pack)
    try:
        rc = pack / ".kindgirc.json"
        assert oct(rc.stat().st_mode & 0o777) == "0o600"
        for name in ("KINDGI_API_URL", "KINDGI_API_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.chdir(pack / ".kindgi")
        client = Kindgi()
        default = client.projects.get_default()
        assert default.is_default is True
        assert default.name == "Default"

        with pytest.raises(AuthError):
            Kindgi(base_url=server.url, token="kgi_bt_wrong").projects.get_default()
        with pytest.raises(NotFoundError) as missing:
            client.projects.get("no-such-project")
        assert missing.value.server_code == "project-not-found"

        second = subprocess.run(
            [KINDGI, "dev"], cwd=pack, env=clean_env(), capture_output=True, text=True, timeout=30
        )
        assert second.returncode == 3
        assert f"pid {server.process.pid}" in second.stderr
        assert server.url in second.stderr

        created = client.projects.create(name="Billing", slug="billing")
        token = server.token
    finally:
        assert server.stop(signal.SIGTERM) == 0
    assert "Stopping kindgi dev... stopped." in server.output()
    assert not (pack / ".kindgi" / "dev" / "dev.lock").exists()

    again = start(pack)
    try:
        assert again.token == token
        client = Kindgi(base_url=again.url, token=token)
        assert client.projects.get(created.id).name == "Billing"
    finally:
        again.stop()


def test_stale_lock_is_taken_over_and_taken_port_is_refused(tmp_path: Path) -> None:
    pack = minimal_pack(tmp_path / "pack")
    lock = pack / ".kindgi" / "dev" / "dev.lock"
    lock.parent.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock.write_text(f'{{"pid": {dead.pid}, "takenAt": "2026-01-01T00:00:00.000Z"}}\n')
    server = start(pack)
    try:
        assert f"pid {dead.pid}" in server.output()
        port = server.url.rsplit(":", 1)[1]
        other = minimal_pack(tmp_path / "other")
        refused = subprocess.run(
            [KINDGI, "dev", "--port", port],
            cwd=other,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert refused.returncode == 1
        assert f"port {port} is in use" in refused.stderr
    finally:
        server.stop()


def test_reset_needs_yes_off_a_terminal_and_makes_a_new_token(tmp_path: Path) -> None:
    pack = minimal_pack(tmp_path / "pack")
    first = start(pack)
    token = first.token
    first.stop()
    refused = subprocess.run(
        [KINDGI, "dev", "--reset"],
        cwd=pack,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 1
    assert "--yes" in refused.stderr
    second = start(pack, "--reset", "--yes")
    try:
        assert second.token != token
    finally:
        second.stop()
    assert os.path.exists(pack / ".kindgirc.json")
