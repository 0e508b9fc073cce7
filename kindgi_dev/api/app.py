"""The `/v1` API's routes, one resource module each; `kindgi_dev.app` serves them beside the
console."""

from __future__ import annotations

import importlib

from starlette.routing import BaseRoute

from . import openapi, system, unserved
from .endpoint import Operation
from .routing import ordered, route

RESOURCES = (
    "system",
    "projects",
    "tenant",
    "agents",
    "tools",
    "flows",
    "runs",
    "run_failures",
    "conversations",
    "memory",
    "memory_erasures",
    "guardrails",
    "judgments",
    "judge_classes",
    "corrections",
    "test_sets",
    "test_set_registry",
    "test_set_pulls",
    "test_set_files",
    "eval_suites",
    "eval_runs",
    "blocks",
    "cost",
    "providers",
    "capabilities",
    "identity",
    "gate_policies",
    "releases",
    "approvals",
)
"""The resource modules of `/v1`, each with its `ENDPOINTS`."""


def endpoints() -> list[Operation]:
    """Every `/v1` endpoint, in the order the resources are listed."""
    found: list[Operation] = []
    for name in RESOURCES:
        found.extend(importlib.import_module(f"{__package__}.{name}").ENDPOINTS)
    return found


def routes() -> list[BaseRoute]:
    """The API's routes: its description, then every endpoint."""
    declared = endpoints()
    found: list[BaseRoute] = list(system.openapi_routes(lambda: openapi.document(declared)))
    found.extend(ordered([route(e) for e in declared]))
    found.extend(unserved.routes({(e.method, e.path) for e in declared}))
    return found
