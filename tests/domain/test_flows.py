"""Flow semantics: `when` predicates, mappings, the output, skipped branches, what can't run."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.domain.flows import (
    FlowDefinition,
    FlowEnv,
    FlowProgress,
    holds,
    problems,
    resolve_mapping,
)

ENV = FlowEnv(
    run_input={"question": "Where is it?", "tags": ["late", "parcel"], "count": 2},
    node_outputs={
        "find": {"articles": [{"id": "kb-301"}, {"id": "kb-303"}], "total": 2},
        "acme.pick": {"ok": True},
    },
)


def path(p: str) -> dict[str, str]:
    return {"path": p}


def lit(v: Any) -> dict[str, Any]:
    return {"literal": v}


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ({"op": "eq", "left": path("runInput.count"), "right": lit(2)}, True),
        ({"op": "eq", "left": path("runInput.count"), "right": lit(True)}, False),
        ({"op": "ne", "left": path("nodeOutputs.find.total"), "right": lit(3)}, True),
        ({"op": "gt", "left": path("nodeOutputs.find.total"), "right": lit(1)}, True),
        ({"op": "lte", "left": path("runInput.question"), "right": lit("A")}, False),
        ({"op": "lt", "left": path("runInput.question"), "right": lit(3)}, False),
        ({"op": "eq", "left": path("runInput.nothing"), "right": lit(None)}, False),
        ({"op": "ne", "left": path("runInput.nothing"), "right": lit(1)}, False),
        ({"op": "in", "value": lit("late"), "set": path("runInput.tags")}, True),
        ({"op": "notIn", "value": lit("lost"), "set": path("runInput.tags")}, True),
        ({"op": "in", "value": lit("late"), "set": path("runInput.question")}, False),
        ({"op": "exists", "value": path("nodeOutputs.find.articles.1.id")}, True),
        ({"op": "notExists", "value": path("nodeOutputs.find.articles.2")}, True),
        ({"op": "truthy", "value": path("nodeOutputs.acme.pick.ok")}, True),
        ({"op": "truthy", "value": lit([])}, True),
        ({"op": "falsy", "value": lit(0)}, True),
        ({"op": "falsy", "value": path("state.flag")}, True),
        (
            {
                "op": "and",
                "children": [
                    {"op": "exists", "value": path("runInput.question")},
                    {"op": "not", "child": {"op": "falsy", "value": path("runInput.count")}},
                ],
            },
            True,
        ),
        (
            {
                "op": "or",
                "children": [
                    {"op": "eq", "left": lit(1), "right": lit(2)},
                    {"op": "exists", "value": path("nodeOutputs.other")},
                ],
            },
            False,
        ),
    ],
)
def test_when_predicates(expr: dict[str, Any], expected: bool) -> None:
    assert holds(expr, ENV) is expected


def test_a_mapping_leaves_out_keys_whose_path_does_not_resolve() -> None:
    mapping = {
        "query": path("runInput.question"),
        "first": path("nodeOutputs.find.articles.0"),
        "limit": lit(3),
        "gone": path("nodeOutputs.never.ran"),
    }
    assert resolve_mapping(mapping, ENV) == {
        "query": "Where is it?",
        "first": {"id": "kb-301"},
        "limit": 3,
    }


def flow(nodes: list[dict[str, Any]], edges: list[tuple[str, str, Any]], **more: Any) -> Any:
    return FlowDefinition.from_manifest(
        {
            "id": "acme.f",
            "version": "0.1.0",
            "nodes": nodes,
            "edges": [
                {"id": f"e{i}", "from": s, "to": t, **({"when": w} if w else {})}
                for i, (s, t, w) in enumerate(edges)
            ],
            **more,
        }
    )


def tool(node_id: str, **more: Any) -> dict[str, Any]:
    return {"id": node_id, "kind": "tool", "ref": f"acme.{node_id}", **more}


def test_a_branch_not_taken_is_skipped_and_the_rejoin_still_runs() -> None:
    big = {"op": "gt", "left": path("nodeOutputs.a.n"), "right": lit(10)}
    small = {"op": "not", "child": big}
    f = flow(
        [tool("a"), tool("big"), tool("small"), tool("join")],
        [("$start", "a", None), ("a", "big", big), ("a", "small", small),
         ("big", "join", None), ("small", "join", None), ("join", "$end", None)],
    )  # fmt: skip
    progress = FlowProgress(f, {"q": 1})
    assert [n.id for n in progress.advance()] == ["a"]
    assert progress.node_input(f.node("a")) == {"q": 1}
    progress.started.add("a")
    assert progress.advance() == []
    progress.outputs["a"] = {"n": 3}
    assert [n.id for n in progress.advance()] == ["small"]
    assert progress.skipped == {"big"}
    progress.started.add("small")
    progress.outputs["small"] = {"picked": "kb-1"}
    ready = progress.advance()
    assert [n.id for n in ready] == ["join"]
    assert progress.node_input(ready[0]) == {"picked": "kb-1"}
    progress.started.add("join")
    progress.outputs["join"] = {"done": True}
    assert progress.output() == {"done": True}


def test_every_edge_skipped_skips_the_node_and_what_follows_it() -> None:
    never = {"op": "eq", "left": lit(1), "right": lit(2)}
    f = flow([tool("a"), tool("b")], [("$start", "a", never), ("a", "b", None),
                                      ("$start", "$end", None)])  # fmt: skip
    progress = FlowProgress(f, {"q": 1})
    assert progress.advance() == []
    assert progress.skipped == {"a", "b"}
    assert progress.output() == {"q": 1}


def test_the_output_mapping_and_input_mappings_read_earlier_nodes() -> None:
    f = flow(
        [tool("find", inputMapping={"query": path("runInput.question")}),
         tool("log", inputMapping={"question": path("runInput.question"),
                                   "articles": path("nodeOutputs.find.articles")})],
        [("$start", "find", None), ("find", "log", None), ("log", "$end", None)],
        output={"mapping": {"articles": path("nodeOutputs.find.articles"),
                            "logged": path("nodeOutputs.log.suggestionId")}},
    )  # fmt: skip
    progress = FlowProgress(f, {"question": "Where?"})
    (find,) = progress.advance()
    assert progress.node_input(find) == {"query": "Where?"}
    progress.started.add("find")
    progress.outputs["find"] = {"articles": [{"id": "kb-301"}]}
    (log,) = progress.advance()
    assert progress.node_input(log) == {"question": "Where?", "articles": [{"id": "kb-301"}]}
    assert progress.output() == {"articles": [{"id": "kb-301"}]}


def test_ready_nodes_go_by_priority_then_id() -> None:
    f = FlowDefinition.from_manifest(
        {
            "id": "acme.f",
            "version": "0.1.0",
            "nodes": [tool("c"), tool("b"), tool("a")],
            "edges": [
                {"id": "1", "from": "$start", "to": "a"},
                {"id": "2", "from": "$start", "to": "b"},
                {"id": "3", "from": "$start", "to": "c", "policy": {"priority": 5}},
            ],
        }
    )
    assert [n.id for n in FlowProgress(f, {}).advance()] == ["c", "a", "b"]


def test_a_pinned_ref_names_the_tool_and_its_version() -> None:
    f = flow([tool("find", ref="acme-ops.find-articles@0.1.0")], [("$start", "find", None)])
    node = f.node("find")
    assert (node.target_id, node.pinned_version) == ("acme-ops.find-articles", "0.1.0")
    assert f.used("tool") == {"acme-ops.find-articles"}


def test_problems_name_the_node_kind_kindgi_dev_does_not_run_and_broken_wiring() -> None:
    f = flow(
        [tool("a"), {"id": "each", "kind": "webhook"}, tool("a")],
        [("$start", "a", None), ("a", "each", None), ("a", "ghost", None)],
    )
    assert problems(f) == [
        "node each is a webhook node, which kindgi dev doesn't run yet",
        "node id a is used twice",
        "edge e2 goes to ghost, which is not a node",
    ]
    cyclic = flow([tool("a"), tool("b")], [("$start", "a", None), ("a", "b", None),
                                          ("b", "a", None)])  # fmt: skip
    assert problems(cyclic) == ["its edges form a cycle"]
    assert problems(flow([tool("a"), tool("b")], [("$start", "a", None)])) == [
        "node b has no edge into it"
    ]
