"""A no-op function model: answers at once, no tool call, so a replay is all overhead."""

from __future__ import annotations

from kindgi_dev.models import Reply, Turn, model


@model(default=True)
def answer_at_once(turn: Turn) -> Reply:
    """No articles, no search."""
    return Reply(text="No articles.", output={"articles": []})
