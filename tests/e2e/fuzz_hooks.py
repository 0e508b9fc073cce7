"""Schemathesis checks of ours: `error_in_envelope` (every error answer is in the contract's
envelope), and the built-in checks that have an allowance (`fuzz_allowances`) or a contract
repair (`fuzz_repairs`), each run as a wrapper that lets exactly that case through and
otherwise fails as the built-in does. Every other built-in runs as it is (`--checks all`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import schemathesis
from fuzz_allowances import ALLOWANCES, DOCUMENT, Allowance
from fuzz_repairs import EXTENSIONS, REPAIRED
from schemathesis import checks as common
from schemathesis.core import NOT_SET
from schemathesis.specs.openapi import checks as builtin


@schemathesis.check
def error_in_envelope(ctx: Any, response: Any, case: Any) -> None:
    """A 4xx/5xx body is `{"error": {code, message, requestId, details?}}`, nothing else."""
    if response.status_code < 400:
        return
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, f"not an envelope: {body!r}"
    error = body["error"]
    assert {"code", "message", "requestId"} <= set(error) <= {
        "code", "message", "requestId", "details"}, f"not an envelope: {body!r}"  # fmt: skip
    assert error["requestId"] == response.headers.get("x-request-id", [None])[0]


def response_schema_conformance_but_extended(ctx: Any, response: Any, case: Any) -> Any:
    """`response_schema_conformance`, with the contract's `EXTENSIONS` taken out first (and
    its `REPAIRED` schemas checked as they are meant)."""
    found = [e for e in EXTENSIONS if case.operation.label in e.operations]
    repaired = REPAIRED.get(case.operation.label)
    if DOCUMENT == "contract" and repaired is not None and response.status_code == 200:
        errors = repaired(response)
        assert not errors, f"violates the schema the contract means: {errors[:3]}"
        return None
    if DOCUMENT != "contract" or not found or response.status_code >= 400:
        return builtin.response_schema_conformance(ctx, response, case)
    body = response.json()
    for extension in found:
        body = extension.strip(body)
    clone = copy.copy(response)
    clone.content = json.dumps(body).encode()
    clone.content_size = len(clone.content)
    clone._deserialized = NOT_SET
    clone._encoded_body = None
    return builtin.response_schema_conformance(ctx, clone, case)


schemathesis.check(response_schema_conformance_but_extended)


def _wrapped(name: str, allowances: list[Allowance]) -> Callable[..., Any]:
    original = getattr(builtin, name, None) or getattr(common, name)

    def check(ctx: Any, response: Any, case: Any) -> Any:
        if any(a.applies(response, case) for a in allowances):
            return None
        return original(ctx, response, case)

    check.__name__ = f"{name}_but_allowed"
    check.__doc__ = f"`{name}`, but for the allowances in tests/e2e/fuzz_hooks.py."
    return schemathesis.check(check)


for _name in sorted({a.check for a in ALLOWANCES}):
    _wrapped(_name, [a for a in ALLOWANCES if a.check == _name])
WRAPPED = sorted({a.check for a in ALLOWANCES} | {"response_schema_conformance"})
"""The built-in checks that run wrapped (the test excludes the originals)."""
