"""Checking a typed answer against the agent's output schema (JSON Schema 2020-12).

A schema of the common keywords is checked by `domain.plain_schema`; `jsonschema` is
imported only to check any other schema, or to say what an answer breaks: it is a tenth
of the idle process's memory, 2 MB more once a run imported it, and its check about 0.3 ms
a replayed case.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kindgi_dev.domain.json import JSON
from kindgi_dev.domain.plain_schema import is_plain, matches
from kindgi_dev.runtime.turn_outcome import TurnFailed

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@dataclass(frozen=True)
class OutputSchema:
    """An agent's output schema, checked, and whether `plain_schema` can match it alone."""

    schema_json: str
    schema: JSON
    plain: bool


def output_validator(agent: Mapping[str, JSON]) -> OutputSchema | None:
    """The agent's checked `output.schema`, or None when it has none."""
    output = agent.get("output")
    schema = output.get("schema") if isinstance(output, Mapping) else None
    if schema is None:
        return None
    return _checked(json.dumps(schema, sort_keys=True), str(agent.get("id")))


@functools.lru_cache(maxsize=256)
def _checked(schema_json: str, agent_id: str) -> OutputSchema:
    """A schema checked once: every turn of a version uses the same one."""
    schema: JSON = json.loads(schema_json)
    if is_plain(schema):
        return OutputSchema(schema_json, schema, plain=True)
    from jsonschema.exceptions import SchemaError

    try:
        _validator(schema_json)
    except SchemaError as error:
        raise TurnFailed(
            "output-schema-violation",
            f"The output schema of {agent_id} is not a valid JSON Schema: {error.message}",
        ) from error
    return OutputSchema(schema_json, schema, plain=False)


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    """A checked validator per schema, built once."""
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_json)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def output_problem(schema: OutputSchema, output: JSON) -> str | None:
    """What is wrong with a typed answer, in words, or None when it matches."""
    if output is None:
        return "the answer has no typed output"
    if schema.plain and matches(schema.schema, output):
        return None
    validator = _validator(schema.schema_json)
    errors = sorted(validator.iter_errors(output), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return None
    return "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])


def first_error(schema: Mapping[str, JSON], value: JSON) -> str | None:
    """The first thing `value` breaks in `schema`, in words, or None when it matches."""
    plain = dict(schema)
    if is_plain(plain) and matches(plain, value):
        return None
    from jsonschema import Draft202012Validator

    error = next(iter(Draft202012Validator(plain).iter_errors(value)), None)
    return None if error is None else error.message
