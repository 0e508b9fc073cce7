"""The `/v1` route table kept between starts (`.kindgi/dev/routes.json`), so a start that
finds it current imports no resource module: each is imported on its first request.

Reading the endpoints' declarations imports every resource module, 78 modules in all,
about 150 ms of a 0.5 s warm start. A route needs only its method, path and name to be
matched, so those are kept, keyed by kindgi dev's own source files (path, size and
modification time of each): any edit of kindgi dev, or another install, builds the table
anew from the modules, as a start without the file does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..domain.narrow import object_of, objects_of, text_or_none

SOURCE = Path(__file__).resolve().parents[1]
"""kindgi dev's package folder, whose `.py` files key the table."""


@dataclass(frozen=True)
class Declared:
    """Where an endpoint is declared: its resource module (in `api/`), method, path and
    operation id."""

    module: str
    method: str
    path: str
    operation_id: str


def source_key() -> str:
    """kindgi dev's own source files, each by path, size and modification time."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(SOURCE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            stat = os.stat(path)
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def read(path: Path) -> list[Declared] | None:
    """The table kept at `path` when it was made from these very sources, else None."""
    try:
        kept = object_of(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    if kept.get("key") != source_key():
        return None
    found = []
    for entry in objects_of(kept.get("routes")):
        fields = [text_or_none(entry.get(name)) for name in ("module", "method", "path", "id")]
        module, method, route_path, operation_id = fields
        if module is None or method is None or route_path is None or operation_id is None:
            return None
        found.append(Declared(module, method, route_path, operation_id))
    return found or None


def write(path: Path, declared: Sequence[Declared]) -> None:
    """Keep the table for the next start; a folder it can't be written to only costs that
    start the modules' imports."""
    routes = [
        {"module": d.module, "method": d.method, "path": d.path, "id": d.operation_id}
        for d in declared
    ]
    staged = path.with_suffix(".json.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        staged.write_text(json.dumps({"key": source_key(), "routes": routes}), "utf-8")
        staged.replace(path)
