"""Collection pages: `limit` 1–100 (default 25) and an opaque cursor over a keyset."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from .errors import BadInput
from .json import JSON

T = TypeVar("T")
U = TypeVar("U")

DEFAULT_LIMIT = 25
MAX_LIMIT = 100

Place = str | int | float | None
"""One place of a keyset position: a column's value, as SQL compares it."""


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, and the cursor of the next when there is more."""

    items: list[T]
    has_more: bool
    next_cursor: str | None = None

    def map(self, render: Callable[[T], U]) -> Page[U]:
        """The same page with each item rendered (a row into its wire shape)."""
        return Page([render(item) for item in self.items], self.has_more, self.next_cursor)


def encode_cursor(position: Sequence[Place]) -> str:
    """An opaque cursor for the keyset position of the last item of a page."""
    raw = json.dumps(list(position), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> list[Place] | None:
    """The keyset position a cursor stands for; 400 `bad-input` when it isn't one of ours."""
    if not cursor:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position: JSON = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInput("cursor: not a cursor this server gave out", field="cursor") from error
    if not isinstance(position, list):
        raise BadInput("cursor: not a cursor this server gave out", field="cursor")
    places: list[Place] = []
    for place in position:
        if not (place is None or isinstance(place, str | int | float)):
            raise BadInput("cursor: not a cursor this server gave out", field="cursor")
        places.append(place)
    return places


def clamp_limit(limit: int | None) -> int:
    """The contract's rule: missing or below 1 → 25, above 100 → 100."""
    if limit is None or limit < 1:
        return DEFAULT_LIMIT
    return min(limit, MAX_LIMIT)


def make_page(rows: Sequence[T], limit: int, position: Callable[[T], Sequence[Place]]) -> Page[T]:
    """A page from `limit + 1` fetched rows: the extra row only says there is more."""
    items = list(rows[:limit])
    if len(rows) > limit and items:
        return Page(items, True, encode_cursor(position(items[-1])))
    return Page(items, False)


def fetch_page(
    fetch: Callable[[int, list[Place] | None], Sequence[T]],
    *,
    limit: int | None,
    cursor: str | None,
    position: Callable[[T], Sequence[Place]],
) -> Page[T]:
    """A page from a keyset query: `fetch(limit, after)` returns up to `limit + 1` rows."""
    size = clamp_limit(limit)
    return make_page(fetch(size, decode_cursor(cursor)), size, position)


def offset_of(cursor: str | None) -> int:
    """The position an offset cursor stands for (0 without one); 400 for any other cursor."""
    position = decode_cursor(cursor)
    if position is None:
        return 0
    if len(position) != 1 or not isinstance(position[0], int) or position[0] < 0:
        raise BadInput("cursor: not a cursor this server gave out", field="cursor")
    return position[0]


def whole_after(cursor: str | None) -> int | None:
    """The whole number a keyset cursor starts after (its first place), None without one;
    400 for a cursor whose first place is no whole number, which this server never gives."""
    position = decode_cursor(cursor)
    if not position:
        return None
    first = position[0]
    if isinstance(first, bool) or not isinstance(first, int):
        raise BadInput("cursor: not a cursor this server gave out", field="cursor")
    return first


def page_of(items: Sequence[T], limit: int | None, cursor: str | None) -> Page[T]:
    """A page of an in-memory list, its cursor the count of items already given."""
    size = clamp_limit(limit)
    start = offset_of(cursor)
    return make_page(list(items[start : start + size + 1]), size, lambda _: [start + size])
