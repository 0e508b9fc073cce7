"""The `/v1` API's routes, one resource module each; `kindgi_dev.app` serves them beside the
console."""

from __future__ import annotations

import importlib
from pathlib import Path

from starlette.routing import BaseRoute

from ..domain.json import JSONObject
from . import route_table, system, unserved
from .endpoint import Operation
from .route_table import Declared
from .routing import loaded_route, ordered, route

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
    return [endpoint for _, endpoint in _declarations()]


def _declarations() -> list[tuple[str, Operation]]:
    """Every `/v1` endpoint beside the name of the resource module declaring it."""
    found: list[tuple[str, Operation]] = []
    for name in RESOURCES:
        module = importlib.import_module(f"{__package__}.{name}")
        found.extend((name, endpoint) for endpoint in module.ENDPOINTS)
    return found


def _description() -> JSONObject:
    """The API's OpenAPI document, made at its first request: its module and pydantic's
    JSON-schema one are a tenth of a warm start's imports, which no other request needs."""
    from . import openapi

    return openapi.document(endpoints())


def routes(table: Path | None = None) -> list[BaseRoute]:
    """The API's routes: its description, then every endpoint. With `table`, the route
    table kept there serves when it is current (`route_table`): no resource module is
    imported until a request reaches it; else the table is made there for the next start."""
    kept = route_table.read(table) if table is not None else None
    if kept is None or any(d.module not in RESOURCES for d in kept):
        declared = _declarations()
        if table is not None:
            route_table.write(
                table, [Declared(m, e.method, e.path, e.operation_id) for m, e in declared]
            )
        built = [route(e) for _, e in declared]
        served = {(e.method, e.path) for _, e in declared}
    else:
        built = [loaded_route(d) for d in kept]
        served = {(d.method, d.path) for d in kept}
    found: list[BaseRoute] = list(system.openapi_routes(_description))
    found.extend(ordered(built))
    found.extend(unserved.routes(served))
    return found
