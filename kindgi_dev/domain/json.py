"""JSON as a type: what a body, a stored JSON column or a pack's manifest holds.

`JSON` is every value `json.loads` can return. Unlike `Any`, mypy makes code narrow it
(`isinstance`) before indexing or comparing it, so a wrong guess about a value's shape is
caught where it is made. It is a named alias pydantic understands, so records and wire
models can hold it too.
"""

from __future__ import annotations

from typing_extensions import TypeAliasType

JSON = TypeAliasType("JSON", "dict[str, JSON] | list[JSON] | str | int | float | bool | None")
"""Any JSON value."""

JSONObject = dict[str, JSON]
"""A JSON object: what a body, a run's input or a tool's arguments usually are."""
