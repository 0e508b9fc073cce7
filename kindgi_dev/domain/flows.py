"""A flow as data, and what its edges, predicates and mappings mean (`flow.schema.json`).

Pure: the flow's definition, `when` predicates, `inputMapping` and the `output` mapping
resolved against a run's environment, and which nodes are ready or skipped as nodes finish.
Running the nodes is the runtime's job (`runtime/flow_run.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import Final, Literal, TypeVar

from .items import same_value
from .json import JSON, JSONObject
from .narrow import is_number, object_of, object_or_none, objects_of

START = "$start"
END = "$end"
LOOP_START = "$loop-start"
LOOP_END = "$loop-end"
RUNNABLE_KINDS = frozenset({"tool", "agent", "fanout", "subgraph", "loop"})


class Missing(Enum):
    """The one value of what a path that does not resolve gives."""

    MISSING = "missing"


MISSING: Final = Missing.MISSING
"""What a path that does not resolve gives: an operand that counts as missing."""

Resolved = JSON | Missing
"""What an operand resolves to: a JSON value, or `MISSING`."""

_Ordered = TypeVar("_Ordered", str, float)

NodeKind = Literal["tool", "agent", "loop", "fanout", "subgraph"]


@dataclass(frozen=True)
class FlowNode:
    """One node: its kind, what it runs (`ref`, an id with an optional `@version`), its input."""

    id: str
    kind: str
    ref: str | None = None
    input_mapping: Mapping[str, JSON] | None = None
    spec: Mapping[str, JSON] = field(default_factory=dict)
    """The node as the flow declares it: a fanout's branches, a subgraph's `flowRef`, …"""

    @property
    def target_id(self) -> str | None:
        """The tool or agent id `ref` names, without a version."""
        return None if self.ref is None else self.ref.partition("@")[0]

    @property
    def pinned_version(self) -> str | None:
        """The version `ref` names after `@`, or None."""
        if self.ref is None or "@" not in self.ref:
            return None
        return self.ref.partition("@")[2] or None

    def part(self, name: str) -> JSONObject:
        """An object the node declares, such as a subgraph's `flowRef` ({} without one)."""
        return object_of(self.spec.get(name))

    def parts(self, name: str) -> list[JSONObject]:
        """A list of objects the node declares, such as a fanout's `branches`."""
        return objects_of(self.spec.get(name))

    def whole(self, name: str, default: int) -> int:
        """A number the node declares, such as a loop's `maxIterations`, as a whole number."""
        value = self.spec.get(name)
        return int(value) if is_number(value) else default

    @cached_property
    def body(self) -> FlowDefinition:
        """A loop node's body (`FlowDefinition.loop_body`), read once: every iteration and
        every replay of the node's flow run the same one."""
        return FlowDefinition.loop_body(self)


@dataclass(frozen=True)
class FlowEdge:
    """A directed edge, taken when its `when` predicate holds (always without one)."""

    id: str
    source: str
    target: str
    when: Mapping[str, JSON] | None = None
    priority: int = 0


@dataclass(frozen=True)
class FlowDefinition:
    """A flow version as the index lists it."""

    id: str
    version: str
    nodes: tuple[FlowNode, ...]
    edges: tuple[FlowEdge, ...]
    output_mapping: Mapping[str, JSON] | None = None
    output_schema: Mapping[str, JSON] | None = None
    max_parallelism: int | None = None
    start: str = START
    end: str = END

    @classmethod
    def loop_body(cls, node: FlowNode) -> FlowDefinition:
        """A loop node's body: a flow of its own between `$loop-start` and `$loop-end`."""
        body = node.part("body")
        read = cls.from_manifest({"id": node.id, "version": "", **body})
        return replace(read, start=LOOP_START, end=LOOP_END)

    @classmethod
    def from_manifest(cls, entry: Mapping[str, JSON]) -> FlowDefinition:
        """Read an index entry (or a stored manifest) of a flow."""
        output = object_of(entry.get("output"))
        parallelism = entry.get("maxParallelism")
        return cls(
            id=str(entry["id"]),
            version=str(entry["version"]),
            nodes=tuple(_node(n) for n in objects_of(entry.get("nodes"))),
            edges=tuple(_edge(e) for e in objects_of(entry.get("edges"))),
            output_mapping=object_or_none(output.get("mapping")),
            output_schema=object_or_none(output.get("schema")),
            max_parallelism=int(parallelism) if is_number(parallelism) else None,
        )

    def node(self, node_id: str) -> FlowNode:
        """The node with this id."""
        return self._by_id[node_id]

    def incoming(self, node_id: str) -> tuple[FlowEdge, ...]:
        """The edges into a node (or into `$end`)."""
        return self._into.get(node_id, ())

    @cached_property
    def _by_id(self) -> dict[str, FlowNode]:
        """The nodes by id, the first of an id (a run asks at each of its steps)."""
        found: dict[str, FlowNode] = {}
        for node in self.nodes:
            found.setdefault(node.id, node)
        return found

    @cached_property
    def _into(self) -> dict[str, tuple[FlowEdge, ...]]:
        """Each target's incoming edges in order, worked out once: a run asks for every
        node's at each of its steps, and every replay of an eval run shares the flow."""
        found: dict[str, list[FlowEdge]] = {}
        for edge in self.edges:
            found.setdefault(edge.target, []).append(edge)
        return {target: tuple(edges) for target, edges in found.items()}

    def used(self, kind: str) -> set[str]:
        """The ids of the tools (or agents) the flow's nodes run; a fanout's branch handlers
        count as either, since a handler names a tool or an agent."""
        found = {n.target_id for n in self.nodes if n.kind == kind and n.target_id}
        for node in self.nodes:
            if node.kind == "fanout":
                found |= {str(b.get("handler")) for b in node.parts("branches")}
        return found


def _node(n: JSONObject) -> FlowNode:
    """One node of a manifest's `nodes`."""
    ref = n.get("ref")
    return FlowNode(
        id=str(n["id"]),
        kind=str(n["kind"]),
        ref=ref if isinstance(ref, str) else None,
        input_mapping=object_or_none(n.get("inputMapping")),
        spec=n,
    )


def _edge(e: JSONObject) -> FlowEdge:
    """One edge of a manifest's `edges`; a priority that isn't a number is 0, and a `when`
    that isn't an object is a predicate that never holds (not one that always does)."""
    priority = object_of(e.get("policy")).get("priority", 0)
    when = e.get("when")
    return FlowEdge(
        id=str(e["id"]),
        source=str(e["from"]),
        target=str(e["to"]),
        when=None if when is None else object_of(when),
        priority=int(priority) if is_number(priority) else 0,
    )


def problems(flow: FlowDefinition) -> list[str]:
    """Why kindgi dev can't run this flow: node kinds it doesn't run, and broken wiring."""
    found = [
        f"node {n.id} is a {n.kind} node, which kindgi dev doesn't run yet"
        for n in flow.nodes
        if n.kind not in RUNNABLE_KINDS
    ]
    for loop in (n for n in flow.nodes if n.kind == "loop"):
        found += [f"in loop {loop.id}: {p}" for p in problems(FlowDefinition.loop_body(loop))]
    ids = [n.id for n in flow.nodes]
    found += [f"node id {i} is used twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
    known = set(ids)
    for edge in flow.edges:
        if edge.source != flow.start and edge.source not in known:
            found.append(f"edge {edge.id} comes from {edge.source}, which is not a node")
        if edge.target != flow.end and edge.target not in known:
            found.append(f"edge {edge.id} goes to {edge.target}, which is not a node")
    found += [f"node {n.id} has no edge into it" for n in flow.nodes if not flow.incoming(n.id)]
    if not found and _has_cycle(flow):
        found.append("its edges form a cycle")
    return found


def _has_cycle(flow: FlowDefinition) -> bool:
    """Whether following edges from some node leads back to it."""
    after: dict[str, list[str]] = {}
    for edge in flow.edges:
        after.setdefault(edge.source, []).append(edge.target)
    state: dict[str, int] = {}

    def visit(node: str) -> bool:
        state[node] = 1
        for nxt in after.get(node, []):
            if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                return True
        state[node] = 2
        return False

    return any(visit(n.id) for n in flow.nodes if n.id not in state)


@dataclass(frozen=True)
class FlowEnv:
    """What operands read: the run's input, its state and the outputs of finished nodes."""

    run_input: JSON
    node_outputs: Mapping[str, JSON]
    state: Mapping[str, JSON] = field(default_factory=dict)
    iteration_index: Resolved = MISSING
    iteration_output: Resolved = MISSING
    """Read only by a loop's exit condition: the iteration's number and its output."""


def resolve(operand: Mapping[str, JSON], env: FlowEnv) -> Resolved:
    """A `{literal}` or `{path}` operand's value; `MISSING` when the path does not resolve."""
    if "literal" in operand:
        return operand["literal"]
    path = str(operand.get("path", ""))
    root, _, rest = path.partition(".")
    if root == "runInput":
        return _walk(env.run_input, rest)
    if root == "state":
        return _walk(dict(env.state), rest)
    if root == "iterationIndex":
        index = env.iteration_index
        return MISSING if isinstance(index, Missing) else _walk(index, rest)
    if root == "iterationOutput":
        output = env.iteration_output
        return MISSING if isinstance(output, Missing) else _walk(output, rest)
    if root == "nodeOutputs":
        # A node id may hold dots: the longest finished node id the path starts with wins.
        for node_id in sorted(env.node_outputs, key=len, reverse=True):
            if rest == node_id or rest.startswith(node_id + "."):
                return _walk(env.node_outputs[node_id], rest[len(node_id) + 1 :])
    return MISSING


def _walk(value: JSON, rest: str) -> Resolved:
    """Follow dot-separated keys (a digit key indexes a list) from `value`."""
    for key in rest.split(".") if rest else []:
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return MISSING
    return value


def resolve_mapping(mapping: Mapping[str, JSON], env: FlowEnv) -> JSONObject:
    """The object a mapping declares; a key whose path does not resolve is left out."""
    resolved = {key: resolve(object_of(operand), env) for key, operand in mapping.items()}
    return {key: value for key, value in resolved.items() if not isinstance(value, Missing)}


def holds(expr: Mapping[str, JSON], env: FlowEnv) -> bool:
    """Whether a `when` predicate holds; a comparison with a missing side never does (a
    part the predicate lacks, or that is no object, counts as missing)."""
    op = expr.get("op")
    if op in ("and", "or"):
        results = (holds(child, env) for child in objects_of(expr.get("children")))
        return all(results) if op == "and" else any(results)
    if op == "not":
        return not holds(object_of(expr.get("child")), env)
    if op in ("exists", "notExists", "truthy", "falsy"):
        value = resolve(object_of(expr.get("value")), env)
        if op == "exists":
            return value is not MISSING
        if op == "notExists":
            return value is MISSING
        return truthy(value) is (op == "truthy")
    if op in ("in", "notIn"):
        value = resolve(object_of(expr.get("value")), env)
        members = resolve(object_of(expr.get("set")), env)
        if isinstance(value, Missing) or not isinstance(members, list):
            return False
        found = any(same_value(value, member) for member in members)
        return bool(found == (op == "in"))
    left = resolve(object_of(expr.get("left")), env)
    right = resolve(object_of(expr.get("right")), env)
    if isinstance(left, Missing) or isinstance(right, Missing):
        return False
    if op == "eq":
        return same_value(left, right)
    if op == "ne":
        return not same_value(left, right)
    return _ordered(str(op), left, right)


def _ordered(op: str, left: JSON, right: JSON) -> bool:
    """`lt`, `lte`, `gt`, `gte` between two numbers or two strings; otherwise false."""
    if isinstance(left, str) and isinstance(right, str):
        return _between(op, left, right)
    if is_number(left) and is_number(right):
        return _between(op, left, right)
    return False


def _between(op: str, left: _Ordered, right: _Ordered) -> bool:
    """`lt`, `lte`, `gt`, `gte` between two values of one ordered kind."""
    outcomes = {"lt": left < right, "lte": left <= right, "gt": left > right, "gte": left >= right}
    return outcomes.get(op, False)


def truthy(value: Resolved) -> bool:
    """JavaScript's truthiness, as the kernel reads it: empty lists and objects are truthy."""
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True


@dataclass
class FlowProgress:
    """Which nodes finished, with what output, and which were skipped, as a run goes on."""

    flow: FlowDefinition
    run_input: JSON
    outputs: JSONObject = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)
    started: set[str] = field(default_factory=set)
    start_value: Resolved = MISSING
    """What the start sentinel's edges bring: the run input, or a loop iteration's input."""
    outer: Mapping[str, JSON] = field(default_factory=dict)
    """The enclosing flow's node outputs, which a loop body's paths read too."""

    @property
    def env(self) -> FlowEnv:
        """The environment operands read now."""
        return FlowEnv(
            self.run_input, {**self.outer, **self.outputs} if self.outer else self.outputs
        )

    @property
    def _start(self) -> JSON:
        start = self.start_value
        return self.run_input if isinstance(start, Missing) else start

    def _taken(self, edge: FlowEdge) -> bool | None:
        """Whether an edge is taken: None while its source hasn't settled."""
        if edge.source != self.flow.start:
            if edge.source in self.skipped:
                return False
            if edge.source not in self.outputs:
                return None
        return edge.when is None or holds(edge.when, self.env)

    def advance(self) -> list[FlowNode]:
        """Skip the nodes none of whose edges is taken; the nodes ready to start, in order."""
        ready: list[tuple[int, str]] = []
        changed = True
        while changed:
            changed = False
            for node in self.flow.nodes:
                if node.id in self.started or node.id in self.skipped:
                    continue
                edges = self.flow.incoming(node.id)
                taken = [self._taken(e) for e in edges]
                if any(t is None for t in taken):
                    continue
                if not any(taken):
                    self.skipped.add(node.id)
                    changed = True
                elif node.id not in {r[1] for r in ready}:
                    priority = edges[0].priority if len(edges) == 1 else 0
                    ready.append((priority, node.id))
        ready.sort(key=lambda r: (-r[0], r[1]))
        return [self.flow.node(node_id) for _, node_id in ready]

    def node_input(self, node: FlowNode) -> JSON:
        """What a node receives: its `inputMapping`, else what its taken edges bring."""
        if node.input_mapping is not None:
            return resolve_mapping(node.input_mapping, self.env)
        return self._brought(self.flow.incoming(node.id))

    def _brought(self, edges: Sequence[FlowEdge]) -> JSON:
        """The single taken upstream's output (the run input from `$start`), else by source."""
        taken = [e for e in edges if self._taken(e)]
        values = {
            e.source: self._start if e.source == self.flow.start else self.outputs[e.source]
            for e in taken
        }
        if len(values) == 1:
            return next(iter(values.values()))
        return values or None

    def output(self) -> JSON:
        """The run's output: the `output` mapping, else what the taken `$end` edges bring."""
        if self.flow.output_mapping is not None:
            return resolve_mapping(self.flow.output_mapping, self.env)
        return self._brought(self.flow.incoming(self.flow.end))
