"""Running a flow: tool and agent nodes, parallelism, a failed node, a refused call that stops."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from kindgi_dev.domain.flows import FlowDefinition, FlowNode
from kindgi_dev.domain.replay import REFUSED_CHANGES
from kindgi_dev.models import ToolCall
from kindgi_dev.runtime.agent_turn import TurnOutcome
from kindgi_dev.runtime.flow_run import NodeRunner, run_flow
from kindgi_dev.runtime.tool_calls import ToolCallRecord, ToolDispatcher

TOOLS = {
    "acme.find": {"id": "acme.find", "version": "0.2.0", "mutating": False},
    "acme.log": {"id": "acme.log", "version": "0.1.0", "mutating": True},
}


class Dispatcher:
    """Answers `acme.find` with the query's words; refuses `acme.log` when told to."""

    def __init__(self, refuse_log: bool = False, delay: float = 0.0) -> None:
        self.refuse_log = refuse_log
        self.delay = delay
        self.active = 0
        self.most = 0

    async def call(self, step: int, call: ToolCall, tool: dict[str, Any] | None) -> ToolCallRecord:
        assert tool is not None
        self.active += 1
        self.most = max(self.most, self.active)
        await asyncio.sleep(self.delay)
        self.active -= 1
        version = str(tool["version"])
        if call.tool_id == "acme.log" and self.refuse_log:
            return ToolCallRecord(step, call.id, call.tool_id, version, call.arguments, None,
                                  REFUSED_CHANGES, "refused", REFUSED_CHANGES)  # fmt: skip
        if call.tool_id == "acme.find" and call.arguments.get("query") == "boom":
            return ToolCallRecord(step, call.id, call.tool_id, version, call.arguments, None,
                                  "tool-error: it broke", "live")  # fmt: skip
        result = {"articles": [{"id": w} for w in str(call.arguments.get("query", "")).split()]}
        return ToolCallRecord(step, call.id, call.tool_id, version, call.arguments, result, None,
                              "live")  # fmt: skip


async def agent_step(
    node: FlowNode, message: str, dispatcher: ToolDispatcher
) -> tuple[str, TurnOutcome]:
    """An agent that answers with the message upper-cased, without calling tools."""
    response = {"role": "agent", "content": message.upper()}
    return "1.0.0", TurnOutcome([response], response, None, [], {"steps": 1}, {"id": "f"})


def runner(dispatcher: Dispatcher) -> NodeRunner:
    def tool_of(node: FlowNode) -> Mapping[str, Any] | None:
        return TOOLS.get(node.target_id or "")

    return NodeRunner(tool_of, agent_step, dispatcher)


SUGGEST = {
    "id": "acme.suggest",
    "version": "0.1.0",
    "nodes": [
        {"id": "find", "kind": "tool", "ref": "acme.find",
         "inputMapping": {"query": {"path": "runInput.question"}}},
        {"id": "log", "kind": "tool", "ref": "acme.log",
         "inputMapping": {"articles": {"path": "nodeOutputs.find.articles"}}},
        {"id": "say", "kind": "agent", "ref": "acme.writer",
         "inputMapping": {"userMessage": {"path": "runInput.question"}}},
    ],
    "edges": [
        {"id": "1", "from": "$start", "to": "find"},
        {"id": "2", "from": "find", "to": "log"},
        {"id": "3", "from": "$start", "to": "say"},
        {"id": "4", "from": "log", "to": "$end"},
        {"id": "5", "from": "say", "to": "$end"},
    ],
    "output": {"mapping": {"articles": {"path": "nodeOutputs.find.articles"},
                           "text": {"path": "nodeOutputs.say"}}},
}  # fmt: skip


def test_a_flow_runs_each_node_once_and_maps_its_output() -> None:
    outcome = asyncio.run(run_flow(FlowDefinition.from_manifest(SUGGEST), {"question": "a b"},
                                   runner(Dispatcher())))  # fmt: skip
    assert outcome.status == "completed"
    assert outcome.output == {"articles": [{"id": "a"}, {"id": "b"}], "text": "A B"}
    by_node = {s.node_id: s for s in outcome.steps}
    assert set(by_node) == {"find", "log", "say"}
    assert (by_node["find"].kind, by_node["find"].version) == ("tool", "0.2.0")
    assert by_node["find"].input == {"query": "a b"}
    assert (by_node["say"].kind, by_node["say"].target_id, by_node["say"].version) == (
        "agent", "acme.writer", "1.0.0")  # fmt: skip
    assert [c.tool_id for c in outcome.tool_calls] == ["acme.find", "acme.log"]


def test_a_refused_tool_call_stops_the_flow_with_the_call() -> None:
    outcome = asyncio.run(run_flow(FlowDefinition.from_manifest(SUGGEST), {"question": "kb-1"},
                                   runner(Dispatcher(refuse_log=True))))  # fmt: skip
    assert outcome.status == "stopped"
    assert outcome.output is None
    assert outcome.stopped is not None
    assert (outcome.stopped.tool_id, outcome.stopped.arguments, outcome.stopped.reason) == (
        "acme.log", {"articles": [{"id": "kb-1"}]}, REFUSED_CHANGES)  # fmt: skip


def test_a_failed_node_fails_the_run_naming_the_node() -> None:
    outcome = asyncio.run(run_flow(FlowDefinition.from_manifest(SUGGEST), {"question": "boom"},
                                   runner(Dispatcher())))  # fmt: skip
    assert outcome.status == "failed"
    assert outcome.failure == "Node find (tool acme.find) failed: tool-error: it broke"
    assert "log" not in {s.node_id for s in outcome.steps}


def test_max_parallelism_bounds_the_nodes_running_at_once() -> None:
    flow = {
        "id": "acme.wide", "version": "0.1.0", "maxParallelism": 2,
        "nodes": [{"id": f"n{i}", "kind": "tool", "ref": "acme.find"} for i in range(5)],
        "edges": [{"id": str(i), "from": "$start", "to": f"n{i}"} for i in range(5)]
        + [{"id": f"end{i}", "from": f"n{i}", "to": "$end"} for i in range(5)],
    }  # fmt: skip
    dispatcher = Dispatcher(delay=0.01)
    outcome = asyncio.run(run_flow(FlowDefinition.from_manifest(flow), {"query": "x"},
                                   runner(dispatcher)))  # fmt: skip
    assert outcome.status == "completed"
    assert len(outcome.steps) == 5
    assert dispatcher.most == 2
    assert outcome.output == {f"n{i}": {"articles": [{"id": "x"}]} for i in range(5)}


def test_a_skipped_branch_has_no_step() -> None:
    flow = {
        "id": "acme.branch", "version": "0.1.0",
        "nodes": [{"id": "find", "kind": "tool", "ref": "acme.find"},
                  {"id": "log", "kind": "tool", "ref": "acme.log"}],
        "edges": [{"id": "1", "from": "$start", "to": "find"},
                  {"id": "2", "from": "find", "to": "log",
                   "when": {"op": "exists", "value": {"path": "nodeOutputs.find.articles.0"}}},
                  {"id": "3", "from": "find", "to": "$end"}],
    }  # fmt: skip
    outcome = asyncio.run(run_flow(FlowDefinition.from_manifest(flow), {"query": ""},
                                   runner(Dispatcher(refuse_log=True))))  # fmt: skip
    assert outcome.status == "completed"
    assert [s.node_id for s in outcome.steps] == ["find"]
    assert outcome.skipped == ("log",)
    assert outcome.output == {"articles": []}


def fanout_flow(convergence: str, *, find_schema: dict[str, Any] | None = None) -> Any:
    schema = find_schema or {"type": "object"}
    return FlowDefinition.from_manifest({
        "id": "acme.fan", "version": "0.1.0",
        "nodes": [{"id": "fan", "kind": "fanout", "convergence": convergence, "branches": [
            {"branchId": "found", "handler": "acme.find", "outputSchema": schema},
            {"branchId": "said", "handler": "acme.writer", "outputSchema": {"type": "string"}},
        ]}],
        "edges": [{"id": "1", "from": "$start", "to": "fan"},
                  {"id": "2", "from": "fan", "to": "$end"}],
    })  # fmt: skip


def test_a_fanout_runs_each_branch_handler_and_converges_as_declared() -> None:
    def run(flow: Any, query: str) -> Any:
        return asyncio.run(run_flow(flow, {"query": query}, runner(Dispatcher())))

    settled = run(fanout_flow("settle-all"), "kb-1")
    assert settled.output == {
        "found": {"status": "succeeded", "output": {"articles": [{"id": "kb-1"}]}},
        "said": {"status": "succeeded", "output": '{"QUERY": "KB-1"}'},
    }
    assert [c.tool_id for c in settled.tool_calls] == ["acme.find"]
    assert run(fanout_flow("all-succeed"), "kb-1").output == {
        "found": {"articles": [{"id": "kb-1"}]}, "said": '{"QUERY": "KB-1"}'}  # fmt: skip
    failed = run(fanout_flow("all-succeed"), "boom")
    assert failed.status == "failed"
    assert failed.failure == "Node fan (fanout) failed: Branch found failed: tool-error: it broke"
    assert run(fanout_flow("any-succeed"), "boom").output == {
        "winnerBranchId": "said", "output": '{"QUERY": "BOOM"}'}  # fmt: skip
    strict = fanout_flow("settle-all", find_schema={"type": "object", "required": ["total"]})
    assert run(strict, "kb-1").output["found"] == {
        "status": "failed",
        "error": "The output does not match its outputSchema: 'total' is a required property",
    }


CHILD = {
    "id": "acme.child", "version": "1.0.0",
    "nodes": [{"id": "find", "kind": "tool", "ref": "acme.find"},
              {"id": "log", "kind": "tool", "ref": "acme.log",
               "inputMapping": {"articles": {"path": "nodeOutputs.find.articles"}}}],
    "edges": [{"id": "1", "from": "$start", "to": "find"}, {"id": "2", "from": "find", "to": "log"},
              {"id": "3", "from": "find", "to": "$end"}],
}  # fmt: skip


def parent(convergence: str, version: str = "1.0.0") -> Any:
    return FlowDefinition.from_manifest({
        "id": "acme.parent", "version": "0.1.0",
        "nodes": [{"id": "sub", "kind": "subgraph", "convergence": convergence,
                   "flowRef": {"flowId": "acme.child", "version": version},
                   "inputMapping": {"query": {"path": "runInput.q"}},
                   "outputSchema": {"type": "object"}}],
        "edges": [{"id": "1", "from": "$start", "to": "sub"},
                  {"id": "2", "from": "sub", "to": "$end"}],
    })  # fmt: skip


def test_a_subgraph_runs_the_other_flow_and_projects_its_outcome() -> None:
    def run(flow: Any, q: str, refuse_log: bool = False) -> Any:
        nodes = runner(Dispatcher(refuse_log=refuse_log))
        nodes.flow_of = lambda flow_id, version: (
            FlowDefinition.from_manifest(CHILD) if (flow_id, version) == ("acme.child", "1.0.0")
            else None)  # fmt: skip
        return asyncio.run(run_flow(flow, {"q": q}, nodes))

    settled = run(parent("settle-all"), "kb-1")
    assert settled.output == {"status": "succeeded", "output": {"articles": [{"id": "kb-1"}]}}
    assert [c.tool_id for c in settled.tool_calls] == ["acme.find", "acme.log"]
    assert run(parent("settle-all"), "boom").output == {
        "status": "failed",
        "error": "Node find (tool acme.find) failed: tool-error: it broke",
    }
    assert run(parent("success-only"), "kb-1").output == {"articles": [{"id": "kb-1"}]}
    assert run(parent("success-only"), "boom").status == "failed"
    missing = run(parent("settle-all", version="9.0.0"), "kb-1")
    assert (
        missing.failure
        == "Node sub (subgraph acme.child) failed: No flow acme.child 9.0.0 is registered."
    )
    stopped = run(parent("settle-all"), "kb-1", refuse_log=True)
    assert stopped.status == "stopped"
    assert stopped.stopped is not None and stopped.stopped.tool_id == "acme.log"


def loop_flow(**loop: Any) -> Any:
    return FlowDefinition.from_manifest({
        "id": "acme.loop", "version": "0.1.0",
        "nodes": [{"id": "each", "kind": "loop", "maxIterations": 3,
                   "outputSchema": {"type": "object"}, **loop,
                   "body": {"nodes": [{"id": "find", "kind": "tool", "ref": "acme.find"}],
                            "edges": [{"id": "in", "from": "$loop-start", "to": "find"},
                                      {"id": "out", "from": "find", "to": "$loop-end"}]}}],
        "edges": [{"id": "1", "from": "$start", "to": "each"},
                  {"id": "2", "from": "each", "to": "$end"}],
    })  # fmt: skip


def test_a_foreach_loop_runs_its_body_per_element_up_to_max_iterations() -> None:
    items = [{"query": "a"}, {"query": "b c"}, {"query": "d"}, {"query": "e"}]
    flow = loop_flow(loopKind="foreach", iterateOver={"path": "runInput.items"},
                     collectAllIterations=True)  # fmt: skip
    outcome = asyncio.run(run_flow(flow, {"items": items}, runner(Dispatcher())))
    assert outcome.output == {
        "iterations": 3, "stopReason": "max-iterations",
        "finalOutput": {"articles": [{"id": "d"}]},
        "outputs": [{"articles": [{"id": "a"}]}, {"articles": [{"id": "b"}, {"id": "c"}]},
                    {"articles": [{"id": "d"}]}],
    }  # fmt: skip
    assert [c.arguments for c in outcome.tool_calls] == items[:3]
    short = asyncio.run(run_flow(flow, {"items": items[:1]}, runner(Dispatcher())))
    assert (short.output["iterations"], short.output["stopReason"]) == (1, "array-exhausted")
    bad = asyncio.run(run_flow(flow, {"items": "a"}, runner(Dispatcher())))
    assert bad.failure == "Node each (loop) failed: iterateOver does not resolve to a list."


def test_a_while_loop_stops_when_its_exit_condition_holds() -> None:
    has_article = {"op": "exists", "value": {"path": "iterationOutput.articles.0"}}
    flow = loop_flow(loopKind="while", exitCondition=has_article)
    found = asyncio.run(run_flow(flow, {"query": "kb-1"}, runner(Dispatcher())))
    assert found.output == {"iterations": 1, "stopReason": "condition-met",
                            "finalOutput": {"articles": [{"id": "kb-1"}]}}  # fmt: skip
    empty = asyncio.run(run_flow(flow, {"query": ""}, runner(Dispatcher())))
    assert (empty.output["iterations"], empty.output["stopReason"]) == (3, "max-iterations")
    before = loop_flow(loopKind="while", evaluationTiming="before",
                       exitCondition={"op": "eq", "left": {"path": "iterationIndex"},
                                      "right": {"literal": 0}})  # fmt: skip
    skipped = asyncio.run(run_flow(before, {"query": "x"}, runner(Dispatcher())))
    assert skipped.output == {"iterations": 0, "stopReason": "condition-met"}
    assert skipped.tool_calls == []
