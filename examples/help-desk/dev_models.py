"""A deterministic stand-in for an LLM, so the help desk answers the same every time.

It answers by the customer's message:

- `Refund order <id>.`: calls `acme-desk.issue-refund` (which waits for a person's yes in
  a run no person started), then says what came back: the refund, or that a reviewer said
  no, and why;
- `Remember <text>`: calls the built-in `kindgi_remember`, then answers `Noted.`;
- `Say nothing.` (or anything, when the instructions say "Say nothing."): empty text, which
  the `answer-not-empty` guardrail halts;
- `Shout <text>`: the text in capitals, which `no-shouting` records on the turn;
- anything else: `Turn <n>: you said <text>`, `n` counting the conversation's messages
  from the customer.
"""

from __future__ import annotations

from kindgi_dev.models import Reply, ToolCall, Turn, model

REFUND = "acme-desk.issue-refund"


@model(default=True)
def desk(turn: Turn) -> Reply:
    question = turn.question()
    results = turn.tool_results()
    if question.startswith("Refund order "):
        return _refund(question.removeprefix("Refund order ").strip(" ."), results)
    if question.startswith("Remember "):
        if not results:
            fact = {"type": "preference", "text": question.removeprefix("Remember ")}
            return Reply(tool_calls=[ToolCall("kindgi_remember", fact)])
        return Reply(text="Noted." if results[-1].error is None else results[-1].error)
    if question == "Say nothing." or "Say nothing." in turn.instructions:
        return Reply(text="")
    if question.startswith("Shout "):
        return Reply(text=question.removeprefix("Shout ").upper())
    said = sum(1 for m in turn.messages if m.role == "user")
    return Reply(text=f"Turn {said}: you said {question}")


def _refund(order: str, results: list) -> Reply:
    if not results:
        return Reply(tool_calls=[ToolCall(REFUND, {"orderId": order})])
    last = results[-1]
    if last.error is not None:
        return Reply(text=f"I could not refund order {order}: {last.error}")
    if last.content.get("status") == "rejected":
        why = last.content.get("rationale", "no reason given")
        return Reply(text=f"I could not refund order {order}: a reviewer said no ({why}).")
    return Reply(text=f"Refunded order {order}: {last.content['refundId']}.")
