"""Suggest help articles for a customer's question: one tool step, its answer the output."""

from kindgi import Flow

suggest_articles = Flow(
    id="acme-ops.suggest-articles",
    version="0.1.0",
    name="Suggest articles",
    description="Finds the help-centre articles that answer a customer's question.",
    nodes=[
        {
            "id": "find",
            "kind": "tool",
            "ref": "acme-ops.find-articles@0.1.0",
            "inputMapping": {"question": {"path": "runInput.question"}},
        }
    ],
    edges=[
        {"id": "start", "from": "$start", "to": "find"},
        {"id": "end", "from": "find", "to": "$end"},
    ],
    output={"mapping": {"output": {"path": "nodeOutputs.find"}}},
)
