"""A function model that answers with 14,000 articles, so one correction can judge 14,000
items that all resolve in the run's output (row 13)."""

from __future__ import annotations

from kindgi_dev.models import Reply, Turn, model

ARTICLES = 14_000


@model(default=True)
def every_article(turn: Turn) -> Reply:
    """No search: the whole (made-up) catalogue, in order."""
    articles = [{"id": f"kb-{i}", "title": f"Article {i}"} for i in range(ARTICLES)]
    return Reply(text=f"{ARTICLES} articles.", output={"articles": articles})
