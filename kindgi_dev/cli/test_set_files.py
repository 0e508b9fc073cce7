"""`kindgi test-sets export|import`: a frozen version as a file to commit, and back.

Both stream: the export is written as it arrives and the import sent a chunk at a time,
with a progress line on a terminal (quiet when piped).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

import click

from ..domain.json import JSON
from ..remote import Transfer
from .command import api_command
from .http import Api, ApiError, in_path
from .test_set_moves import ProgressLine, split_reference

CHUNK = 64 * 1024


def add_to(group: click.Group) -> None:
    """Add `export` and `import` to `kindgi test-sets`."""

    @api_command(
        group, "export", help="Write a version as a file to commit (keys sorted, a case a line)."
    )
    @click.argument("reference", metavar="<testSetId>@<version>")
    @click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=False, path_type=Path),
        help="The file to write (default: stdout).",
    )
    def export(api: Api, reference: str, output: Path | None) -> JSON:
        """`GET …/versions/{v}/export`, written as it comes; with `-o`, what was written, its
        folder made only once the answer is good, and a file that can't be written an
        `Error …` line."""
        test_set_id, version = split_reference(reference)
        progress = ProgressLine()
        chunks = _counted(
            api.download(
                f"/v1/test-sets/{in_path(test_set_id)}/versions/{in_path(version)}/export"
            ),
            progress,
            "exported",
        )
        if output is None:
            for chunk in chunks:
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
            progress.done()
            return None
        try:
            first = next(chunks, b"")  # asks: an error answer stops here, before any folder
            output.parent.mkdir(parents=True, exist_ok=True)
            written = _write(chain([first], chunks), output)
        except OSError as error:
            raise ApiError(
                "invalid-request", f"--output: can't write {output}: {_why(error)}", 400
            ) from None
        finally:
            progress.done()
        return {"testSetId": test_set_id, "version": version, "file": str(output), "bytes": written}

    @api_command(group, "import", help="Store a test-set file here read-only, as a pulled version.")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    def import_file(api: Api, file: Path) -> JSON:
        """`POST /v1/test-sets/import?source=<file>`, the file sent a chunk at a time."""
        size = file.stat().st_size
        progress = ProgressLine()
        try:
            return api.upload(
                "/v1/test-sets/import",
                _read(file, progress),
                size=size,
                params={"source": file.as_posix()},
            )
        finally:
            progress.done()


def _write(chunks: Iterator[bytes], output: Path) -> int:
    """Write the chunks to a partial file beside `output`, then put it in its place, so an
    export cut short leaves no half file; how many bytes were written."""
    partial = output.with_name(f".{output.name}.partial")
    written = 0
    try:
        with partial.open("wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
                written += len(chunk)
        os.replace(partial, output)
    finally:
        partial.unlink(missing_ok=True)
    return written


def _why(error: OSError) -> str:
    """What the system said of a file it couldn't write, and which."""
    return f"{error.strerror}: {error.filename}" if error.filename else str(error)


def _counted(chunks: Iterator[bytes], progress: ProgressLine, verb: str) -> Iterator[bytes]:
    """The chunks, drawing how many cases (lines) and bytes have passed."""
    lines = size = 0
    for chunk in chunks:
        lines += chunk.count(b"\n")
        size += len(chunk)
        progress(verb, Transfer(max(lines - 1, 0), None, size))
        yield chunk


def _read(file: Path, progress: ProgressLine) -> Iterator[bytes]:
    sent = lines = 0
    with file.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sent += len(chunk)
            lines += chunk.count(b"\n")
            progress("sent", Transfer(max(lines - 1, 0), None, sent))
            yield chunk
