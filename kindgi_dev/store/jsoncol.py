"""JSON columns: compact text in, Python values out."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import TypeAdapter

from ..domain.json import JSON
from ..domain.stored_values import COPY, COPY_DEPTH, repaired

if TYPE_CHECKING:
    from .db import Database


T = TypeVar("T")


def dump(value: object) -> str | None:
    """Compact JSON text, or NULL for None: always a value every answer can render.

    What a model or a tool returned reached no request's checks, so a run's output may nest
    hundreds of levels deep, hold a NaN or a lone surrogate; such a value is kept repaired
    by the rule m0029 applies to older rows (`domain.stored_values`), not stored to make
    every later read of it fail."""
    if value is None:
        return None
    try:
        text = _text(value)
    except (ValueError, RecursionError):
        return _text(repaired(value, COPY))
    if text.count("[") + text.count("{") > COPY_DEPTH or not _utf8(text):
        fixed = repaired(value, COPY)
        return text if fixed is value else _text(fixed)
    return text


def _text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _utf8(text: str) -> bool:
    """Whether SQLite can store the text: no lone surrogate in it."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def load(text: str | bytes | None) -> Any:
    """The value of a JSON column (None for NULL)."""
    return None if text is None else json.loads(text)


def load_json(text: str | bytes | None) -> JSON:
    """The value of a JSON column that holds any JSON (None for NULL), as `JSON`."""
    found: JSON = load(text)
    return found


class Codec(Generic[T]):
    """The stored format of a JSON column that holds a known shape: a pydantic `TypeAdapter`
    over the record (or, where stored keys are camelCase, a `TypedDict` of them) it holds.

    The adapter is built when first used, as `store/eval_runs.py` does: building them at
    import slows every start."""

    def __init__(self, kind: type[T]) -> None:
        self.kind = kind

    @cached_property
    def adapter(self) -> TypeAdapter[T]:
        """The pydantic adapter of the shape."""
        return TypeAdapter(self.kind)

    def dump(self, value: T | None) -> str | None:
        """The column's text for a value (NULL for None), written as `dump` writes any JSON."""
        return None if value is None else dump(self.adapter.dump_python(value, mode="json"))

    def load(self, text: str | bytes | None) -> T | None:
        """The value a column's text holds (None for NULL), checked against the shape."""
        return None if text is None else self.adapter.validate_json(text)


class JsonRows:
    """A store's one way to write rows whose named columns hold JSON, and to read them back.

    `insert` writes the columns it is given (a row's missing ones as NULL), `update` sets
    some columns of one row, `decoded` turns a read row into a dict with its JSON loaded.
    """

    def __init__(self, *json_columns: str) -> None:
        self.json = frozenset(json_columns)

    def value(self, column: str, value: Any) -> Any:
        """What a column stores for a value: JSON text for a JSON column."""
        return dump(value) if column in self.json else value

    def decoded(self, row: sqlite3.Row | Mapping[str, Any]) -> dict[str, Any]:
        """A row as a dict, its JSON columns loaded."""
        record = dict(row)
        for name in self.json & record.keys():
            record[name] = load(record[name])
        return record

    def insert(
        self, db: Database, table: str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]
    ) -> None:
        """Add rows to `table`, each with these columns (a missing value is NULL)."""
        marks = ", ".join("?" * len(columns))
        with db.transaction() as conn:
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                [[self.value(c, row.get(c)) for c in columns] for row in rows],
            )

    def update(
        self, db: Database, table: str, key: tuple[str, Any], changes: Mapping[str, Any]
    ) -> None:
        """Set some columns of the row whose `key` column (name, value) matches."""
        column, value = key
        db.run(
            f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in changes)} WHERE {column} = ?",
            [*(self.value(c, v) for c, v in changes.items()), value],
        )
