"""Issue 22: what `kindgi dev` acknowledged is there after another process read the database,
after `kill -9`, and after the disk filled up; and one database takes one `kindgi dev`.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from devserver import KINDGI, DevServer, clean_env, minimal_pack, start

pytestmark = pytest.mark.slow


def read_from_another_process(database: Path) -> int:
    """What a developer does in a second terminal: `sqlite3 dev.sqlite3 "select …"`."""
    done = subprocess.run(
        ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
         "print(c.execute('select count(*) from projects').fetchone()[0]); c.close()",
         str(database)],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return int(done.stdout)


def create_project(http: httpx.Client, slug: str) -> httpx.Response:
    return http.post("/v1/projects", json={"name": slug.title(), "slug": slug})


def slugs(server: DevServer) -> set[str]:
    """Every project's slug, page by page."""
    found: set[str] = set()
    params: dict[str, str | int] = {"limit": 100}
    with server.client() as http:
        while True:
            answer = http.get("/v1/projects", params=params)
            assert answer.status_code == 200, answer.text
            page = answer.json()
            found |= {project["slug"] for project in page["data"]}
            if not page["hasMore"]:
                return found
            params["cursor"] = page["nextCursor"]


def test_acknowledged_writes_survive_another_reader_and_kill_9(tmp_path: Path) -> None:
    pack = minimal_pack(tmp_path / "pack")
    database = pack / ".kindgi" / "dev.sqlite3"
    first = start(pack)
    with first.client() as http:
        assert create_project(http, "before-restart").status_code == 201
    assert first.stop() == 0
    server = start(pack)  # on an existing database, as after any restart
    acknowledged = {"default", "before-restart"}
    try:
        with server.client() as http:
            for round_ in range(3):
                assert read_from_another_process(database) == len(acknowledged)
                assert Path(f"{database}-wal").exists(), "the live WAL was deleted"
                for n in range(5):
                    slug = f"round-{round_}-{n}"
                    assert create_project(http, slug).status_code == 201
                    acknowledged.add(slug)
        assert read_from_another_process(database) == len(acknowledged)
        server.stop(signal.SIGKILL)
        again = start(pack)
        try:
            assert slugs(again) == acknowledged
        finally:
            again.stop()
    finally:
        server.stop(signal.SIGKILL)


def test_a_second_kindgi_dev_on_the_same_database_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "shared-data"
    pack = minimal_pack(tmp_path / "pack")
    server = start(pack, "--data-dir", str(data))
    try:
        with server.client() as http:
            assert create_project(http, "mine").status_code == 201
        other = minimal_pack(tmp_path / "other")
        for where in (other, pack):
            refused = subprocess.run(
                [KINDGI, "dev", "--port", "0", "--data-dir", str(data)], cwd=where,
                env=clean_env(), capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert refused.returncode == 3, refused.stderr
            assert f"pid {server.process.pid}" in refused.stderr
            assert server.url in refused.stderr and str(pack) in refused.stderr
        assert not (other / ".kindgirc.json").exists()
        assert slugs(server) == {"default", "mine"}
    finally:
        server.stop()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs of its own, so the test can fill it (mounting needs root, as in CI)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no room left."""
    filler = disk / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_answers_507_saves_nothing_and_recovers(
    small_disk: Path, tmp_path: Path
) -> None:
    pack = minimal_pack(tmp_path / "pack")
    server = start(pack, "--data-dir", str(small_disk / "state"))
    database = small_disk / "state" / "dev.sqlite3"
    try:
        with server.client() as http:
            filler = fill(small_disk)
            saved, refused = {"default"}, None
            for n in range(2000):
                answer = http.post("/v1/projects", json={"name": "P" * 200, "slug": f"full-{n}"})
                assert answer.status_code in (201, 507), answer.text
                if answer.status_code == 507:
                    refused = answer.json()["error"]
                    break
                saved.add(f"full-{n}")
            assert refused is not None, "the disk never filled"
            assert refused["code"] == "insufficient-storage"
            assert "disk" in refused["message"] and str(database) in refused["message"]
            assert slugs(server) == saved
            filler.unlink()
            assert create_project(http, "after-space-freed").status_code == 201
            saved.add("after-space-freed")
        server.stop(signal.SIGKILL)
        again = start(pack, "--data-dir", str(small_disk / "state"))
        try:
            assert slugs(again) == saved
            check = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            check.close()
        finally:
            again.stop()
    finally:
        server.stop(signal.SIGKILL)
