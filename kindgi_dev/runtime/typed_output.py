"""Checking a typed answer against the agent's output schema (JSON Schema 2020-12).

`jsonschema` is imported on the first typed answer, not at start: it is a tenth of the
idle process's memory and of its start's imports.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kindgi_dev.domain.json import JSON
from kindgi_dev.runtime.turn_outcome import TurnFailed

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


def output_validator(agent: Mapping[str, JSON]) -> Draft202012Validator | None:
    """A Draft 2020-12 validator of the agent's `output.schema`, or None when it has none."""
    output = agent.get("output")
    schema = output.get("schema") if isinstance(output, Mapping) else None
    if schema is None:
        return None
    from jsonschema.exceptions import SchemaError

    try:
        return _validator(json.dumps(schema, sort_keys=True))
    except SchemaError as error:
        raise TurnFailed(
            "output-schema-violation",
            f"The output schema of {agent.get('id')} is not a valid JSON Schema: {error.message}",
        ) from error


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    """A checked validator per schema, built once: every turn of a version uses the same one."""
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_json)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def output_problem(validator: Draft202012Validator, output: JSON) -> str | None:
    """What is wrong with a typed answer, in words, or None when it matches."""
    if output is None:
        return "the answer has no typed output"
    errors = sorted(validator.iter_errors(output), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return None
    return "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])


def first_error(schema: Mapping[str, JSON], value: JSON) -> str | None:
    """The first thing `value` breaks in `schema`, in words, or None when it matches."""
    from jsonschema import Draft202012Validator

    error = next(iter(Draft202012Validator(dict(schema)).iter_errors(value)), None)
    return None if error is None else error.message
