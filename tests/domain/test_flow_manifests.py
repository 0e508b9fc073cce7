"""A flow manifest read as JSON: a part of the wrong shape reads as absent (a `when` as one
that never holds), and a node's parts are read through `part`, `parts` and `whole`."""

from __future__ import annotations

from kindgi_dev.domain.flows import (
    MISSING,
    FlowDefinition,
    FlowEnv,
    FlowNode,
    FlowProgress,
    holds,
    resolve,
)
from kindgi_dev.domain.json import JSON, JSONObject


def manifest(nodes: JSON, edges: JSON, **more: JSON) -> FlowDefinition:
    return FlowDefinition.from_manifest({"id": "acme.f", "version": "0.1.0", "nodes": nodes,
                                         "edges": edges, **more})  # fmt: skip


def test_parts_of_the_wrong_shape_read_as_absent() -> None:
    flow = manifest(
        [{"id": "a", "kind": "tool", "ref": 7, "inputMapping": "q"}, "not a node"],
        [{"id": "e0", "from": "$start", "to": "a", "policy": {"priority": "9"}}, 3],
        output="all of it",
        maxParallelism="4",
    )
    assert [(n.id, n.ref, n.input_mapping) for n in flow.nodes] == [("a", None, None)]
    assert [(e.id, e.priority, e.when) for e in flow.edges] == [("e0", 0, None)]
    assert (flow.output_mapping, flow.output_schema, flow.max_parallelism) == (None, None, None)
    assert manifest("nodes", {"edges": []}).nodes == ()
    assert manifest([], [], maxParallelism=4).max_parallelism == 4
    assert manifest([], [], maxParallelism=True).max_parallelism is None


def test_a_when_that_is_no_object_never_holds() -> None:
    flow = manifest(
        [{"id": "a", "kind": "tool"}, {"id": "b", "kind": "tool"}],
        [{"id": "e0", "from": "$start", "to": "a", "when": ["always"]},
         {"id": "e1", "from": "$start", "to": "b"}],
    )  # fmt: skip
    progress = FlowProgress(flow, {"q": 1})
    assert [n.id for n in progress.advance()] == ["b"]
    assert progress.skipped == {"a"}


def test_a_node_reads_its_parts_by_shape() -> None:
    spec: JSONObject = {
        "id": "n", "kind": "loop", "flowRef": {"flowId": "acme.g"}, "exitCondition": "soon",
        "branches": [{"handler": "acme.h"}, "junk"], "maxIterations": 3.0, "concurrency": "2",
    }  # fmt: skip
    node = FlowNode("n", "loop", spec=spec)
    assert node.part("flowRef") == {"flowId": "acme.g"}
    assert node.part("exitCondition") == {}
    assert node.part("body") == {}
    assert node.parts("branches") == [{"handler": "acme.h"}]
    assert node.parts("flowRef") == []
    assert node.whole("maxIterations", 1) == 3
    assert node.whole("concurrency", 0) == 0
    assert node.whole("missing", 5) == 5


def test_an_iteration_not_begun_is_missing_and_one_begun_resolves() -> None:
    before = FlowEnv(run_input={}, node_outputs={})
    assert resolve({"path": "iterationIndex"}, before) is MISSING
    assert holds({"op": "exists", "value": {"path": "iterationOutput.n"}}, before) is False
    during = FlowEnv({}, {}, iteration_index=2, iteration_output={"n": 5})
    assert resolve({"path": "iterationIndex"}, during) == 2
    assert holds({"op": "gte", "left": {"path": "iterationOutput.n"}, "right": {"literal": 4.5}},
                 during)  # fmt: skip
    assert not holds({"op": "gt", "left": {"literal": True}, "right": {"literal": 0}}, during)
