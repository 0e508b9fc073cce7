"""A test-set version as a file: exported a page of cases at a time, imported as a pull.

Export reads the version twice, a page at a time: once for the envelope (the agents and
flows it names, its digest), once to write the cases, so a large version is never held
whole. Import checks the whole file first, then stores it as a pulled version would be:
read-only, marked `file:<name>`, a no-op for the same content, `409` for other content.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..domain.errors import ValidationFailed
from ..domain.test_set_files import Digest, Envelope, Names, file_lines, read_file
from . import test_set_pulls, test_set_registry
from .context import Context
from .test_set_pulls import PulledVersion

PAGE = 100


def _cases(ctx: Context, test_set_id: str, version: str) -> Iterator[Any]:
    """Every case of a version, in its own order, a page at a time."""
    cursor = None
    while True:
        page = test_set_registry.entry_cases(ctx, test_set_id, version, limit=PAGE, cursor=cursor)
        yield from page.items
        if not page.has_more:
            return
        cursor = page.next_cursor


def export(ctx: Context, test_set_id: str, version: str) -> Iterator[str]:
    """The version's file, a line at a time; 404 for an unknown version and 400 for a
    registry entry of another kind than `corrections`, before any line."""
    entry = test_set_registry.entry_version(ctx, test_set_id, version)
    if entry.kind != "corrections":
        raise ValidationFailed(
            "testSetId", f"is a {entry.kind} test set: only corrections test sets export"
        )
    names, digest, count = Names.empty(), Digest(), 0
    for case in _cases(ctx, test_set_id, version):
        if isinstance(case, Mapping):
            names.add(case)
        digest.add(case)
        count += 1
    agents, flows = names.listed()
    envelope = Envelope(test_set_id, version, count, digest.hexdigest(), agents, flows)
    return file_lines(envelope, _cases(ctx, test_set_id, version))


def import_file(ctx: Context, data: Mapping[str, Any], name: str | None) -> PulledVersion:
    """Store a file's version read-only, once its digest is checked; nothing is written
    when it is refused."""
    found = read_file(data)
    source = f"{test_set_pulls.FILE}{name or 'upload'}"
    envelope = found.envelope
    return test_set_pulls.store_version(
        ctx, envelope.test_set_id, envelope.version, found.cases, source, found.canonical
    )
