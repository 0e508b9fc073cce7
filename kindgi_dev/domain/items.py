"""An output's items: what people correct and what scores count.

The items are the list elements of the typed answer (or the typed answer itself when
it has no list) and the answer's text. An element with an `id` or `key` field is
identified by it wherever it sits; the others are named by their pointer.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypeIs

from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.domain.pointers import INDEX, child, format_pointer, parse_pointer

ANSWER_KEY = "answer"
OUTPUT_KEY = "output"
_ID_FIELDS = ("id", "key")


@dataclass(frozen=True)
class Item:
    """One item of an output: its key, where it is, its place in its list, and its value."""

    key: str
    pointer: str
    rank: int | None
    value: JSON
    identified: bool


def same_value(left: JSON, right: JSON) -> bool:
    """Whether two JSON values are equal, telling booleans apart from numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_value(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value, left, right))
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return bool(left == right)


def is_agent_turn(run_output: JSON) -> TypeIs[JSONObject]:
    """Whether a run's output is an agent turn's result (it has `appended` or `output`)."""
    return isinstance(run_output, dict) and ("appended" in run_output or "output" in run_output)


def items_of(run_output: JSON) -> list[Item]:
    """The items of a run's output, typed-answer items first in document order, then the text."""
    if not is_agent_turn(run_output):
        return _typed_answer_items(run_output, "")
    items = _typed_answer_items(run_output.get("output"), "/output")
    answer = answer_item(run_output)
    if answer is not None:
        items.append(answer)
    return items


def item_at(run_output: JSON, pointer: str) -> Item | None:
    """The item of `items_of` that `pointer` names, or None when it names no item.

    Walks the pointer alone, so checking many pointers of a large output stays linear.
    """
    if not is_agent_turn(run_output):
        return _typed_answer_item_at(run_output, "", pointer)
    answer = answer_item(run_output)
    if answer is not None and answer.pointer == pointer:
        return answer
    return _typed_answer_item_at(run_output.get("output"), "/output", pointer)


def _typed_answer_item_at(answer: JSON, prefix: str, pointer: str) -> Item | None:
    """The item at `pointer` of a typed answer at `prefix`: a list element reached through
    objects only, or the answer itself when it holds no list."""
    if answer is None:
        return None
    if pointer == prefix:
        return (
            None if _collect(answer, prefix, []) else Item(OUTPUT_KEY, prefix, None, answer, False)
        )
    if not pointer.startswith(prefix + "/"):
        return None
    *path, last = parse_pointer(pointer[len(prefix) :])
    value: JSON = answer
    for token in path:
        if not isinstance(value, dict) or token not in value:
            return None
        value = value[token]
    if not isinstance(value, list) or not INDEX.fullmatch(last) or int(last) >= len(value):
        return None
    place = prefix + format_pointer([*path, last])
    return _element(value[int(last)], place, int(last))


def answer_item(run_output: JSON) -> Item | None:
    """The answer's text as an item: the last agent message with string content, if any."""
    if not isinstance(run_output, dict):
        return None
    appended = run_output.get("appended")
    if not isinstance(appended, list):
        return None
    for index in range(len(appended) - 1, -1, -1):
        message = appended[index]
        if (
            isinstance(message, dict)
            and message.get("role") == "agent"
            and isinstance(message.get("content"), str)
        ):
            pointer = f"/appended/{index}/content"
            return Item(ANSWER_KEY, pointer, None, message["content"], identified=False)
    return None


def answer_text(run_output: JSON) -> str | None:
    """The answer's text of an agent turn, or None when it has none."""
    item = answer_item(run_output)
    return item.value if item is not None and isinstance(item.value, str) else None


def _typed_answer_items(answer: JSON, prefix: str) -> list[Item]:
    """The items of a typed answer: its list elements, or itself when it has no list."""
    if answer is None:
        return []
    items: list[Item] = []
    if not _collect(answer, prefix, items):
        items.append(Item(OUTPUT_KEY, prefix, None, answer, identified=False))
    return items


def _collect(value: JSON, pointer: str, into: list[Item]) -> bool:
    """Add the elements of every list reachable through objects; whether any list was met.

    A list element is one item: lists inside it are part of its value.
    """
    if isinstance(value, list):
        into.extend(_element(element, child(pointer, i), i) for i, element in enumerate(value))
        return True
    if isinstance(value, dict):
        found = [_collect(inner, child(pointer, key), into) for key, inner in value.items()]
        return any(found)
    return False


def _element(value: JSON, pointer: str, rank: int) -> Item:
    """One list element as an item, identified by its `id` or `key` field when it has one."""
    ident = _identity(value)
    if ident is None:
        return Item(pointer, pointer, rank, value, identified=False)
    return Item(ident, pointer, rank, value, identified=True)


def _identity(value: JSON) -> str | None:
    """The element's own id: a non-empty string or an integer `id`, else `key`, else None."""
    if not isinstance(value, dict):
        return None
    for field in _ID_FIELDS:
        ident = value.get(field)
        if isinstance(ident, bool):
            continue
        if isinstance(ident, int) or (isinstance(ident, str) and ident):
            return str(ident)
    return None
