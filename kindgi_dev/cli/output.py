"""What commands print: pretty JSON on stdout by default, `--raw`, `--table`, `--quiet`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict

import click

from ..domain.json import JSON, JSONObject

Column = tuple[str, Callable[[JSONObject], object]]
Rows = Callable[[JSON], list[JSONObject] | None]
"""A command's rows for `--table` from an answer that is no list page (None: print JSON)."""


class Table(TypedDict):
    """A command's `--table`: its columns, and its rows from an answer that is no page."""

    columns: Sequence[Column]
    rows: Rows


@dataclass(frozen=True)
class Format:
    """The output format a command was asked for (quiet > raw > table > json)."""

    quiet: bool = False
    raw: bool = False
    table: bool = False

    def emit(
        self, body: JSON, columns: Sequence[Column] | None = None, rows: Rows | None = None
    ) -> None:
        """Print an answer, its whole numbers as the real CLI prints them (`1`, not `1.0`)."""
        if self.quiet:
            return
        body = whole_numbers(body)
        found = rows(body) if self.table and rows is not None and not self.raw else None
        data = body.get("data") if isinstance(body, dict) else None
        if found is not None:
            click.echo(render_table(found, columns or default_columns(found)))
        elif self.raw:
            click.echo(json.dumps(body, separators=(",", ":"), ensure_ascii=False))
        elif self.table and isinstance(body, dict) and isinstance(data, list):
            listed = [row for row in data if isinstance(row, dict)]
            click.echo(render_table(listed, columns or default_columns(listed)))
            if body.get("nextCursor"):
                click.echo(f"Next page: --cursor={body['nextCursor']}", err=True)
        else:
            click.echo(json.dumps(body, indent=2, ensure_ascii=False))


def whole_numbers(value: JSON) -> JSON:
    """`value` with each float that is a whole number as an int, as JSON numbers print in
    JavaScript."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def default_columns(rows: Sequence[JSONObject], most: int = 6) -> list[Column]:
    """A list's columns when its command names none: the first row's plain fields."""
    first = rows[0] if rows and isinstance(rows[0], dict) else {}
    keys = [k for k, v in first.items() if v is None or isinstance(v, str | int | float | bool)]
    return [(_header(key), _getter(key)) for key in keys[:most]]


def _header(key: str) -> str:
    """`createdAt` → `CREATED AT`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).upper()


def _getter(key: str) -> Callable[[JSONObject], object]:
    return lambda row: row.get(key)


def render_table(rows: Sequence[JSONObject], columns: Sequence[Column]) -> str:
    """A plain table: CAPS header, a `─` rule, two spaces between columns."""
    if not rows:
        return "(no rows)"
    cells = [[name for name, _ in columns]]
    cells += [["" if get(row) is None else str(get(row)) for _, get in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in cells
    ]
    lines.insert(1, "  ".join("─" * w for w in widths))
    return "\n".join(lines)
