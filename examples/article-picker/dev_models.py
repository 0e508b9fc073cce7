"""A deterministic stand-in for an LLM, so the tutorial gives the same numbers every time.

It reads the agent's instructions the way a model would, coarsely:

- 0.1.0 ("Answer with the three most relevant articles"): search with the customer's
  question, then answer with the first three articles the search found;
- 0.2.0 ("Answer with only the articles that answer it"): search with the question minus
  its final period, then answer with the first article only, in other words;
- any other "the N most relevant articles" (two, three, four): search with the question,
  then answer with the first N.
"""

from __future__ import annotations

from typing import Any

from kindgi_dev.models import Message, Reply, ToolCall, Turn, model

SEARCH = "acme-ops.search-articles"
ONLY_WHAT_ANSWERS = "only the articles that answer"
HOW_MANY = {"two": 2, "three": 3, "four": 4}


@model(default=True)
def article_picker(turn: Turn) -> Reply:
    """Search first; once the search answered, pick articles from its results."""
    concise = ONLY_WHAT_ANSWERS in turn.instructions
    results = [m for m in turn.tool_results() if m.tool_id == SEARCH]
    if not results:
        question = turn.question()
        query = question.removesuffix(".") if concise else question
        return Reply(tool_calls=[ToolCall(SEARCH, {"query": query})])
    found = _articles(results[-1])
    picked = found[:1] if concise else found[: _how_many(turn.instructions)]
    return Reply(text=_answer_text(picked, concise), output={"articles": picked})


def _how_many(instructions: str) -> int:
    """N of "the N most relevant articles" (three when the instructions don't say)."""
    for word, count in HOW_MANY.items():
        if f"the {word} most relevant" in instructions:
            return count
    return 3


def _articles(result: Message) -> list[dict[str, Any]]:
    """The `{id, title}` of each article a search result holds, in its order."""
    content = result.content if result.error is None else None
    articles = content.get("articles", []) if isinstance(content, dict) else []
    return [{"id": a["id"], "title": a["title"]} for a in articles]


def _answer_text(picked: list[dict[str, Any]], concise: bool) -> str:
    if not picked:
        return "I couldn't find a help article about that."
    listed = ", ".join(f"{a['title']} ({a['id']})" for a in picked)
    if concise:
        return f"This article answers your question: {listed}."
    return f"These articles may help: {listed}."
