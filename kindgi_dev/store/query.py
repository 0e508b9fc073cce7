"""A WHERE clause built up with its parameters, for the stores' filtered keyset lists, and
the chunks an `IN (…)` of many values is read in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

SQLValue = str | int | float | bytes | None
"""What a `?` of a statement stands for: one of the values SQLite stores."""

T = TypeVar("T")

IN_AT_ONCE = 500
"""Values an `IN (…)` takes at a time: well under SQLite's limit of parameters a statement."""


def chunks(values: Sequence[T], size: int = IN_AT_ONCE) -> list[list[T]]:
    """`values` in lists of `size` at most, in order, for a statement each."""
    return [list(values[start : start + size]) for start in range(0, len(values), size)]


def marks(values: Sequence[object]) -> str:
    """As many `?`s as `values`, comma-separated, for an `IN (…)`."""
    return ", ".join("?" * len(values))


class Where:
    """Conditions joined by AND, and the values their `?`s stand for, in order."""

    def __init__(self, clause: str, *params: SQLValue) -> None:
        self.clauses = [clause]
        self.params: list[SQLValue] = list(params)

    def add(self, clause: str, *params: SQLValue) -> None:
        """One more condition."""
        self.clauses.append(clause)
        self.params.extend(params)

    def equal(self, filters: Mapping[str, SQLValue]) -> None:
        """`column = ?` for each filter given a value (None means not filtered)."""
        for column, value in filters.items():
            if value is not None:
                self.add(f"{column} = ?", value)

    def named(self, filters: Mapping[str, SQLValue], conditions: Mapping[str, str]) -> None:
        """For each filter given a value, the condition its domain name stands for (one `?`).

        Filters are named as the domain names them (`agent_id`, `corrected_by`); which columns
        they read is the store's business, so the names are mapped here.
        """
        for name, value in filters.items():
            if value is not None:
                self.add(conditions[name], value)

    def one_of(self, column: str, values: Sequence[SQLValue]) -> None:
        """`column IN (…)` when there are values."""
        if values:
            self.add(f"{column} IN ({', '.join('?' * len(values))})", *values)

    def after(self, position: Sequence[SQLValue] | None, columns: str = "created_at, id") -> None:
        """Rows after a keyset position, newest first: `(columns) < (position)`."""
        if position:
            self.add(f"({columns}) < ({', '.join('?' * len(position))})", *position)

    def __str__(self) -> str:
        return " AND ".join(self.clauses)
