"""The files `kindgi dev` keeps in the pack: the lock and `.kindgirc.json`, and its port."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..domain.json import JSON, JSONObject
from ..domain.time import now_iso

PACK_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,}$")


@dataclass(frozen=True)
class Holder:
    """Who holds the lock: a live `kindgi dev`, where it serves, and on which pack."""

    pid: int
    taken_at: str
    api_url: str | None
    pack_dir: str | None = None


def _alive(pid: int) -> bool:
    """Whether the process runs; a zombie (killed, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


class Lock:
    """A `dev/dev.lock` file: one `kindgi dev` per pack and one per database folder (the
    pack's `.kindgi/` by default, where the two are one file); a dead holder's is taken over."""

    def __init__(self, path: Path, pack_dir: Path) -> None:
        self.path = path
        self.pack_dir = pack_dir
        self.previous_pid: int | None = None
        self._held = False
        self._taken_at = ""

    def acquire(self) -> Holder | None:
        """Take the lock; the live holder instead when another `kindgi dev` has it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                holder = self._read()
                if holder is not None and holder.pid != os.getpid() and _alive(holder.pid):
                    return holder
                self.previous_pid = holder.pid if holder else None
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                continue
            self._taken_at = now_iso()
            with os.fdopen(fd, "w") as handle:
                handle.write(json.dumps(self._body()) + "\n")
            self._held = True
            return None
        raise OSError(errno.EEXIST, f"could not take {self.path}")

    def note_url(self, api_url: str) -> None:
        """Add the API URL once serving, so a second `kindgi dev` can say where."""
        if self._held:
            self.path.write_text(json.dumps(self._body(api_url)) + "\n")

    def release(self) -> None:
        """Remove the lock (every exit path)."""
        if self._held:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self._held = False

    def _body(self, api_url: str | None = None) -> JSONObject:
        body: JSONObject = {"pid": os.getpid(), "takenAt": self._taken_at}
        body["packDir"] = str(self.pack_dir)
        if api_url:
            body["apiUrl"] = api_url
        return body

    def _read(self) -> Holder | None:
        try:
            data = json.loads(self.path.read_text() or "{}")
            pack = data.get("packDir")
            return Holder(
                int(data["pid"]),
                str(data.get("takenAt", "")),
                data.get("apiUrl"),
                pack if isinstance(pack, str) else None,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None


def acquire_all(locks: list[Lock]) -> Holder | None:
    """Take every lock in order; on the first held by another `kindgi dev`, give back the
    ones taken and return its holder."""
    for taken, lock in enumerate(locks):
        holder = lock.acquire()
        if holder is not None:
            for earlier in locks[:taken]:
                earlier.release()
            return holder
    return None


def read_rc(path: Path) -> JSONObject:
    """The previous `.kindgirc.json`, or `{}`."""
    try:
        data: JSON = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def pack_service_token(previous: JSONObject) -> str | None:
    """The previous pack-service token when it is still a valid one."""
    token = previous.get("packServiceToken")
    return token if isinstance(token, str) and PACK_TOKEN.match(token) else None


def write_rc(path: Path, fields: Mapping[str, JSON]) -> None:
    """Write `.kindgirc.json` (mode 0600, 2-space JSON, trailing newline) atomically."""
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(fields, indent=2) + "\n")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def bind(host: str, port: int) -> socket.socket | None:
    """A listening socket on host:port, or None when the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        return None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def choose_socket(host: str, port: int, explicit: bool) -> tuple[socket.socket | None, int]:
    """The given port, or (not given) the first free one of the next 100."""
    if explicit or port == 0:
        sock = bind(host, port)
        return sock, sock.getsockname()[1] if sock else port
    for candidate in range(port, port + 101):
        sock = bind(host, candidate)
        if sock is not None:
            return sock, candidate
    return None, port
