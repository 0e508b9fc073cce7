"""Search Acme's help centre: a read-only tool, so replays may run it live."""

from __future__ import annotations

from kindgi import tool
from pydantic import BaseModel, Field

from ._help_centre import search


class SearchInput(BaseModel):
    query: str = Field(min_length=1, description="The customer's question, or words from it.")


class FoundArticle(BaseModel):
    id: str
    title: str
    score: int


class SearchResult(BaseModel):
    articles: list[FoundArticle]


@tool(
    id="acme-ops.search-articles",
    mutating=False,
    effects=[{"kind": "reads", "resource": "help-centre"}],
)
def search_articles(args: SearchInput) -> SearchResult:
    """Finds the help-centre articles that match a question, best match first."""
    return SearchResult(
        articles=[
            FoundArticle(id=article.id, title=article.title, score=score)
            for article, score in search(args.query)
        ]
    )
