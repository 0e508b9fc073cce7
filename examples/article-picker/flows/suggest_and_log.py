"""Suggest help articles, and record the suggestions for billing questions in Acme's log.

The log step runs only when the best article is a billing one (kb-2xx): its edge's `when`
reads the find step's output. Logging changes things, so a replay never runs it anew.
"""

from kindgi import Flow

BILLING = ["kb-201", "kb-202", "kb-203", "kb-204"]

suggest_and_log = Flow(
    id="acme-ops.suggest-and-log",
    version="0.1.0",
    name="Suggest and log articles",
    description="Finds the articles that answer a question and logs billing suggestions.",
    nodes=[
        {
            "id": "find",
            "kind": "tool",
            "ref": "acme-ops.find-articles@0.1.0",
            "inputMapping": {"question": {"path": "runInput.question"}},
        },
        {
            "id": "log",
            "kind": "tool",
            "ref": "acme-ops.log-suggestion",
            "inputMapping": {
                "articles": {"path": "nodeOutputs.find.articles"},
                "question": {"path": "runInput.question"},
            },
        },
    ],
    edges=[
        {"id": "start", "from": "$start", "to": "find"},
        {
            "id": "billing",
            "from": "find",
            "to": "log",
            "when": {
                "op": "in",
                "value": {"path": "nodeOutputs.find.articles.0.id"},
                "set": {"literal": BILLING},
            },
        },
        {"id": "end", "from": "find", "to": "$end"},
    ],
    output={"mapping": {"output": {"path": "nodeOutputs.find"}}},
)
