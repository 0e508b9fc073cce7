"""The contract's response schemas as they are meant, where they can't be met as written.

Two kinds: `EXTENSIONS`, fields our answers carry beyond a schema closed to them (checked
as if absent); `REPAIRED`, operations whose schema no answer can satisfy (each checked
against the schema it means). `fuzz_hooks` applies both to the contract's document only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema_rs


@dataclass(frozen=True)
class Extension:
    """Fields an answer carries beyond a contract schema closed to them, and why: the
    answer is checked against the schema as if they weren't there."""

    operations: tuple[str, ...]
    paths: tuple[str, ...]
    """Where the fields are: `frozenVersion`, `data/*/frozenVersion` (`*`: every item)."""
    why: str

    def strip(self, body: Any) -> Any:
        """`body` without the fields."""
        for path in self.paths:
            _drop(body, path.split("/"))
        return body


def _drop(node: Any, steps: list[str]) -> None:
    head, *rest = steps
    if head == "*" and isinstance(node, list):
        for item in node:
            _drop(item, rest)
    elif isinstance(node, dict) and not rest:
        node.pop(head, None)
    elif isinstance(node, dict) and head in node:
        _drop(node[head], rest)


EXTENSIONS = [
    Extension(
        ("GET /v1/eval-runs", "GET /v1/eval-runs/{runId}", "POST /v1/eval-runs/{runId}/cancel"),
        (
            "frozenVersion",
            "data/*/frozenVersion",
            "comparison/baselineVersion",
            "data/*/comparison/baselineVersion",
            "comparison/resumeOf",
            "data/*/comparison/resumeOf",
            "comparison/reuse",
            "data/*/comparison/reuse",
            "result/summary/reusedAnswers",
            "data/*/result/summary/reusedAnswers",
        ),
        "An eval run on an agent's test set names the frozen version it ran on (the 0.4 spec's "
        "`frozenVersion`, DESIGN.md), a version or live baseline the version it replayed "
        "(`baselineVersion`, issue 24), a resumed run the run it resumed (`resumeOf`), a run asked "
        "to reuse answers that it did and how many (`reuse`, `reusedAnswers`, issue 29): the 0.1 "
        "contract's EvalRun and EvalComparison are closed to them.",
    ),
    Extension(
        ("GET /v1/eval-suites/{suiteId}/versions/{version}/cases",),
        (
            "data/*/items/*/judgmentIds",
            "data/*/items/*/restricted/judgmentIds",
            "data/*/corrections",
        ),
        "A judged suite's case names the corrections counted in each item (`judgmentIds`, "
        "`restricted.judgmentIds`) and carries those that say what the run should have done "
        "(`corrections`): the spec's build-test-cases-from-corrections 0.2 page has them from "
        "runtime 0.2.0; the 0.1 contract's JudgedItemSummary and JudgedEvalCase are closed "
        "to them.",
    ),
]


CONTRACT = Path(os.environ.get("KINDGI_FUZZ_CONTRACT", "tests/contract/openapi-subset.json"))


@lru_cache(maxsize=1)
def contract() -> Any:
    """The contract's OpenAPI document."""
    return json.loads(CONTRACT.read_text())


def _validator(schema: Any) -> Any:
    """A validator of `schema`, its references into the contract's components resolved."""
    return jsonschema_rs.validator_for({**schema, "components": contract()["components"]})


@lru_cache(maxsize=1)
def judgment_with_copies() -> Any:
    """JudgmentWithCopies as the contract means it: a Judgment with `run` (required) and
    `itemValue`. As written it is allOf [Judgment, {run, itemValue}] with Judgment closed
    (additionalProperties: false), which no answer holding `run` can satisfy."""
    judgment = dict(contract()["components"]["schemas"]["Judgment"])
    copies = {"run": {"$ref": "#/components/schemas/JudgedRunCopy"}, "itemValue": {}}
    judgment["properties"] = {**judgment["properties"], **copies}
    judgment["required"] = [*judgment["required"], "run"]
    return _validator(judgment)


def _any_of_times(node: Any) -> Any:
    """`node` with each `oneOf` of string schemas read as `anyOf`: the contract writes a
    Timestamp as oneOf [date-time, any string], which every date-time matches twice."""
    if isinstance(node, list):
        return [_any_of_times(item) for item in node]
    if not isinstance(node, dict):
        return node
    read = {key: _any_of_times(value) for key, value in node.items()}
    branches = node.get("oneOf")
    if isinstance(branches, list) and all(b.get("type") == "string" for b in branches):
        read["anyOf"] = read.pop("oneOf")
    return read


@lru_cache(maxsize=1)
def journal_page() -> Any:
    """RunJournalPage, its entries' Timestamp read as meant (see `_any_of_times`)."""
    schemas = contract()["components"]["schemas"]
    return jsonschema_rs.validator_for(
        {**_any_of_times(schemas["RunJournalPage"]), "components": {"schemas": {
            name: _any_of_times(schema) for name, schema in schemas.items()}}}
    )  # fmt: skip


def journal_errors(response: Any) -> list[str]:
    return [e.message for e in journal_page().iter_errors(response.json())]


def judgment_errors(response: Any) -> list[str]:
    return [e.message for e in judgment_with_copies().iter_errors(response.json())]


def run_event_errors(response: Any) -> list[str]:
    """Each frame's `data` against RunEvent: the contract gives RunEvent as the stream's
    schema, meaning each frame's data ("Each frame is one RunEvent"), where schemathesis
    reads it as the frame (`id`, `event`, `data`)."""
    event = _validator({"$ref": "#/components/schemas/RunEvent"})
    lines = response.content.decode().splitlines()
    data = [json.loads(line.removeprefix("data:")) for line in lines if line.startswith("data:")]
    return [e.message for item in data for e in event.iter_errors(item)]


REPAIRED: dict[str, Callable[[Any], list[str]]] = {
    "GET /v1/judgments/{judgmentId}": judgment_errors,
    "GET /v1/runs/{runId}/journal": journal_errors,
    "GET /v1/runs/{runId}/stream": run_event_errors,
}
"""Operations whose contract response schema can't be met as written, each checked against
the schema it means instead."""
