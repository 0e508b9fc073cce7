"""Validate an answer against a schema of the contract's OpenAPI subset (`tests/contract/`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

CONTRACT = Path(__file__).resolve().parent / "contract" / "openapi-subset.json"


@functools.cache
def _components() -> dict[str, Any]:
    components: dict[str, Any] = _relaxed(json.loads(CONTRACT.read_text("utf-8"))["components"])
    return components


def _relaxed(schema: Any) -> Any:
    """The schema with each `oneOf` of plain strings read as `anyOf`: the journal's timestamp
    is "a date-time, or an ISO 8601 string", which every date-time matches twice."""
    if isinstance(schema, list):
        return [_relaxed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: _relaxed(value) for key, value in schema.items()}
    branches = found.get("oneOf")
    if isinstance(branches, list) and all(b.get("type") == "string" for b in branches):
        found["anyOf"] = found.pop("oneOf")
    return found


def problems(schema_name: str, instance: Any) -> list[str]:
    """Where and why `instance` doesn't match `#/components/schemas/<schema_name>`."""
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": _components()}
    validator = Draft202012Validator(root, format_checker=FormatChecker())
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(instance)]


SUMMARY_EXTENSIONS = ("corrections", "judge", "flaky", "cost")
"""Fields kindgi dev adds to a comparison's summary (docs/api.md), outside the contract's."""
METRIC_EXTENSIONS = ("paired",)
CASE_EXTENSIONS = ("passedAll", "passedAny", "flaky", "passedBefore", "errored")


def contract_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A comparison's summary without kindgi dev's extensions, as a strict client of the
    contract reads it (`passRate` and `caseCoverage` are the 0.4 spec's, not the contract's)."""
    metrics = {
        name: {k: v for k, v in metric.items() if k not in METRIC_EXTENSIONS}
        for name, metric in summary["metrics"].items()
        if name not in ("passRate", "caseCoverage")
    }
    kept = {k: v for k, v in summary.items() if k not in SUMMARY_EXTENSIONS}
    return {**kept, "metrics": metrics}
