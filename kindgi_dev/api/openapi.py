"""`/openapi.json`, generated from the endpoints' own declarations and models."""

from __future__ import annotations

import re

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from .. import __version__
from ..domain.bounds import MAX_NUMBER, MIN_NUMBER
from ..domain.json import JSON, JSONObject
from .endpoint import Operation
from .wire import JSON_VALUE

Keyed = dict[tuple[type, str], JSONObject]
"""Each model's schema, by the model and the mode (`validation` for a body)."""

_REF = "#/components/schemas/"

_PARAM = re.compile(r"{(\w+)(?::\w+)?}")

_ERROR_SCHEMA: JSONObject = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "requestId"],
            "additionalProperties": False,
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "requestId": {"type": "string"},
                "details": {"type": "object"},
            },
        }
    },
}


def document(endpoints: list[Operation]) -> JSONObject:
    """The OpenAPI 3.1 document of every endpoint."""
    models = _models(endpoints)
    found, defs = models_json_schema(
        [(m, "validation" if m in models["in"] else "serialization") for m in models["all"]],
        by_alias=True,
        ref_template=_REF + "{model}",
    )
    names = _titled(defs.get("$defs", {}))
    keyed: Keyed = {key: _named(schema, names) for key, schema in found.items()}
    schemas: JSONObject = {
        names.get(name, name): _named(schema, names)
        for name, schema in defs.get("$defs", {}).items()
    }
    schemas["WireError"] = _ERROR_SCHEMA
    schemas["JsonValue"] = JSON_VALUE
    paths: dict[str, JSONObject] = {}
    for endpoint in endpoints:
        path = _PARAM.sub(r"{\1}", endpoint.path)
        paths.setdefault(path, {})[endpoint.method.lower()] = _operation(endpoint, path, keyed)
    _bound_requests(paths, schemas)
    listed: JSONObject = {path: operations for path, operations in paths.items()}
    return {
        "openapi": "3.1.0",
        "info": {"title": "kindgi dev", "version": __version__},
        "paths": listed,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearerAuth": []}],
    }


def _titled(defs: JSONObject) -> dict[str, str]:
    """The components to name by their model's title: a class named for its role in Python
    (`RunAnswer`) keeps the contract's component name (`model_config` title `Run`). A
    component's name is its class's, with pydantic's `-Input`/`-Output` when the two differ."""
    names: dict[str, str] = {}
    for name, schema in defs.items():
        base, dash, mode = name.partition("-")
        title = schema.get("title") if isinstance(schema, dict) else None
        if isinstance(title, str) and title != base and "__" not in base:
            names[name] = title + dash + mode
    return names


def _named(node: JSONObject, names: dict[str, str]) -> JSONObject:
    """`node` with its references to renamed components (see `_titled`) following them."""
    if not names:
        return node
    renamed = _renamed(node, {_REF + old: _REF + new for old, new in names.items()})
    return renamed if isinstance(renamed, dict) else node


def _renamed(node: JSON, refs: dict[str, str]) -> JSON:
    if isinstance(node, list):
        return [_renamed(item, refs) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: refs.get(value, value) if key == "$ref" and isinstance(value, str)
        else _renamed(value, refs)
        for key, value in node.items()
    }  # fmt: skip


def _bound_requests(paths: dict[str, JSONObject], schemas: JSONObject) -> None:
    """Every number a request takes (its query's, its body's and the schemas they refer to)
    bounded to 64 bits: answers are not bounded by it."""
    operations = [
        operation
        for methods in paths.values()
        for operation in methods.values()
        if isinstance(operation, dict)
    ]
    taken: list[JSON] = [
        part
        for operation in operations
        for part in (operation["parameters"], operation.get("requestBody"))
        if part
    ]
    names = _referenced(taken, schemas)
    for operation in operations:
        operation["parameters"] = _in_64_bits(operation["parameters"])
        if "requestBody" in operation:
            operation["requestBody"] = _in_64_bits(operation["requestBody"])
    for name in names:
        schemas[name] = _in_64_bits(schemas[name])


def _referenced(nodes: list[JSON], schemas: JSONObject) -> set[str]:
    """The names of the component schemas `nodes` refer to, directly or through others."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in found and name in schemas:
                    found.add(name)
                    stack.append(schemas[name])
            stack.extend(node.values())
    return found


def _in_64_bits(node: JSON) -> JSON:
    """`node` with every number schema bounded to 64 bits where it names no bound: a query
    or body number beyond them is refused (`limits.check_numbers`), so the schema says so."""
    if isinstance(node, list):
        return [_in_64_bits(item) for item in node]
    if not isinstance(node, dict):
        return node
    bounded: JSONObject = {key: _in_64_bits(value) for key, value in node.items()}
    kinds = node.get("type")
    if kinds in ("integer", "number") or (
        isinstance(kinds, list) and {"integer", "number"} & set(kinds)
    ):
        if "minimum" not in node and "exclusiveMinimum" not in node:
            bounded["minimum"] = MIN_NUMBER
        if "maximum" not in node and "exclusiveMaximum" not in node:
            bounded["maximum"] = MAX_NUMBER
    return bounded


def _models(endpoints: list[Operation]) -> dict[str, list[type[BaseModel]]]:
    inputs = [e.body for e in endpoints if e.takes_body]
    outputs = [e.response for e in endpoints if e.response is not None]
    unique: list[type[BaseModel]] = []
    for model in inputs + outputs:
        if model not in unique:
            unique.append(model)
    return {"in": inputs, "all": unique}


def _operation(endpoint: Operation, path: str, keyed: Keyed) -> JSONObject:
    answered = _content(endpoint.response, keyed, "serialization")
    responses: JSONObject = {str(endpoint.status): answered}
    for status in endpoint.also:
        responses[str(status)] = answered
    for status in sorted(set(endpoint.errors or (400, 401, 404)) | _always_possible(endpoint)):
        responses[str(status)] = {
            "description": "An error in the envelope.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WireError"}}},
        }
    operation: JSONObject = {
        "operationId": endpoint.operation_id,
        "summary": endpoint.summary,
        "parameters": _parameters(endpoint, path),
        "responses": responses,
    }
    if endpoint.takes_body:
        operation["requestBody"] = {
            "required": not endpoint.body_optional,
            **_content(endpoint.body, keyed, "validation"),
        }
    if endpoint.public:
        operation["security"] = []
    return operation


def _always_possible(endpoint: Operation) -> set[int]:
    """Refusals every such operation can answer: 401 without the token, 400 for a query or
    body that isn't valid (and for a Host that isn't ours), 413 for a body too large."""
    statuses = {400}
    if not endpoint.public:
        statuses.add(401)
    if endpoint.takes_body:
        statuses.add(413)
    return statuses


def _content(model: type[BaseModel] | None, keyed: Keyed, mode: str) -> JSONObject:
    if model is None:
        return {"description": "OK"}
    schema = keyed.get((model, mode)) or keyed.get((model, "serialization"))
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _parameters(endpoint: Operation, path: str) -> list[JSON]:
    params: list[JSON] = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PARAM.findall(path)
    ]
    if endpoint.takes_query:
        schema = endpoint.query.model_json_schema(by_alias=True)
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            params.append(
                {"name": name, "in": "query", "required": name in required, "schema": prop}
            )
    return params
