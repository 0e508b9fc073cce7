"""A schema of the common keywords is matched without `jsonschema`, never more leniently
than it: what `matches` accepts, `jsonschema` accepts, and what it turns down goes to
`jsonschema` for the last word and the message."""

from __future__ import annotations

import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from kindgi_dev.domain.json import JSON
from kindgi_dev.domain.plain_schema import is_plain, matches

ARTICLES: JSON = {
    "type": "object",
    "title": "Articles",
    "properties": {
        "articles": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
                "required": ["id", "title"],
                "additionalProperties": False,
            },
        },
        "label": {"enum": ["yes", "no", 1, None]},
        "score": {"type": ["number", "null"]},
        "count": {"type": "integer"},
        "flag": {"type": "boolean", "description": "Whether it is set."},
        "extra": {"additionalProperties": {"type": "string"}},
    },
    "required": ["articles"],
}

VALUES: list[JSON] = [
    {"articles": []},
    {"articles": [{"id": "kb-1", "title": "Reset"}]},
    {"articles": [{"id": "kb-1"}]},
    {"articles": [{"id": "kb-1", "title": "Reset", "more": 1}]},
    {"articles": [{"id": 1, "title": "Reset"}]},
    {"articles": "kb-1"},
    {},
    [],
    None,
    "text",
    {"articles": [], "label": "yes"},
    {"articles": [], "label": "maybe"},
    {"articles": [], "label": 1},
    {"articles": [], "label": True},
    {"articles": [], "label": None},
    {"articles": [], "score": 0.5},
    {"articles": [], "score": None},
    {"articles": [], "score": "high"},
    {"articles": [], "score": False},
    {"articles": [], "count": 3},
    {"articles": [], "count": 3.0},
    {"articles": [], "count": 3.5},
    {"articles": [], "count": True},
    {"articles": [], "flag": True},
    {"articles": [], "flag": 0},
    {"articles": [], "extra": {"a": "b"}},
    {"articles": [], "extra": {"a": 1}},
    {"articles": [], "extra": "not an object"},
]


@pytest.mark.parametrize("value", VALUES)
def test_a_plain_schema_matches_exactly_what_jsonschema_accepts(value: JSON) -> None:
    assert is_plain(ARTICLES)
    Draft202012Validator.check_schema(ARTICLES)
    assert matches(ARTICLES, value) == Draft202012Validator(ARTICLES).is_valid(value)


@pytest.mark.parametrize("value", [{"a": 1}, 1.0])
def test_an_enum_of_objects_or_another_numbers_type_is_left_to_jsonschema(value: JSON) -> None:
    schema: JSON = {"enum": [{"a": 1}, 1]}
    assert is_plain(schema)
    assert not matches(schema, value)
    assert Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"type": "string", "minLength": 2},
        {"type": "string", "format": "email"},
        {"type": "text"},
        {"type": []},
        {"type": ["string", "string"]},
        {"required": ["a", "a"]},
        {"required": "a"},
        {"properties": {"a": {"pattern": "x"}}},
        {"items": [{"type": "string"}]},
        {"enum": []},
        {"title": 3},
        "string",
    ],
)
def test_a_schema_with_any_other_keyword_or_value_is_not_plain(schema: JSON) -> None:
    assert not is_plain(schema)


SCRIPT = """
import sys
from kindgi_dev.runtime.typed_output import output_problem, output_validator
schema = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
checked = output_validator({"id": "a", "output": {"schema": schema}})
print(output_problem(checked, {"id": "kb-1"}), "jsonschema" in sys.modules)
print(output_problem(checked, {}), "jsonschema" in sys.modules)
"""


def test_a_matching_answer_imports_no_jsonschema_and_a_breaking_one_gets_its_words() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines() == [
        "None False",
        "$: 'id' is a required property True",
    ]
