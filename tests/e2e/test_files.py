"""Issue 10: the token's files are private after a start, and a damaged database is explained."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest
from devserver import KINDGI, clean_env, minimal_pack

from kindgi_dev.store.db import Database

pytestmark = pytest.mark.slow


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def boot_once(pack: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kindgi dev --no-watch` (boots, registers once, exits) under a permissive umask."""
    return subprocess.run(
        [KINDGI, "dev", "--port", "0", "--no-watch", *args], cwd=pack, env=clean_env(),
        capture_output=True, text=True, timeout=120, preexec_fn=lambda: os.umask(0o022),
    )  # fmt: skip


def test_a_start_leaves_the_token_readable_only_by_its_owner(tmp_path: Path) -> None:
    pack = minimal_pack(tmp_path / "pack")
    state = pack / ".kindgi"
    state.mkdir(mode=0o755)
    state.chmod(0o755)
    older = sqlite3.connect(state / "dev.sqlite3")  # as an older version left it: 0644, in WAL
    older.execute("PRAGMA journal_mode=WAL")
    older.execute("CREATE TABLE leftover (x)")
    (state / "dev.sqlite3").chmod(0o644)
    for suffix in ("-wal", "-shm"):
        assert mode(state / f"dev.sqlite3{suffix}") == 0o644
    try:
        booted = boot_once(pack)
    finally:
        older.close()
    assert booted.returncode == 0, booted.stderr
    assert mode(state) == 0o700
    assert mode(pack / ".kindgirc.json") == 0o600
    files = [p for p in state.iterdir() if p.name.startswith("dev.sqlite3")]
    assert files and all(mode(p) == 0o600 for p in files), {p.name: oct(mode(p)) for p in files}
    fresh = minimal_pack(tmp_path / "fresh")
    assert boot_once(fresh).returncode == 0
    assert mode(fresh / ".kindgi") == 0o700
    assert mode(fresh / ".kindgi" / "dev.sqlite3") == 0o600


def damage_database(database: Path, damage: str) -> None:
    """Leave the database file as a user may find it after a bad day."""
    database.parent.mkdir(parents=True, exist_ok=True)
    if damage == "empty":
        database.write_bytes(b"")
        return
    if damage == "folder":
        database.mkdir()
        return
    made = Database(database)
    made.migrate()
    made.close()
    if damage == "schema":
        broken = sqlite3.connect(database, isolation_level=None)
        broken.execute("PRAGMA writable_schema=ON")
        broken.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE projects(' "
                       "WHERE name = 'projects'")  # fmt: skip
        broken.close()
        return
    data = bytearray(database.read_bytes())
    if damage == "not-a-database":
        data[:16] = b"not sqlite at al"
    else:
        data[4096 * 2 : 4096 * 6] = b"\xab" * 4096 * 4
    database.write_bytes(bytes(data))


DAMAGES = ["not-a-database", "malformed-page", "schema", "empty", "folder"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_database_says_what_to_do(tmp_path: Path, damage: str) -> None:
    pack = minimal_pack(tmp_path / "pack")
    database = pack / ".kindgi" / "dev.sqlite3"
    damage_database(database, damage)
    before = database.read_bytes() if database.is_file() else None
    booted = boot_once(pack)
    assert booted.returncode == 1, booted.stderr
    assert "Traceback" not in booted.stderr
    assert f"{database} can't be read" in booted.stderr
    assert "--reset" in booted.stderr and f"mv {database} {database}.broken" in booted.stderr
    assert (database.read_bytes() if database.is_file() else None) == before
    assert not (pack / ".kindgirc.json").exists(), "a refused database made a new token"
    refusal = [line for line in booted.stderr.splitlines() if "can't be read" in line]
    assert len(refusal) == 1, booted.stderr
