"""Find the help articles for a question, version 0.1.0: the search's two best matches."""

from __future__ import annotations

from kindgi import tool
from pydantic import BaseModel, Field

from ._help_centre import search


class FindInput(BaseModel):
    question: str = Field(min_length=1, description="The customer's question.")


class Article(BaseModel):
    id: str
    title: str


class Found(BaseModel):
    articles: list[Article]


@tool(
    id="acme-ops.find-articles",
    version="0.1.0",
    mutating=False,
    effects=[{"kind": "reads", "resource": "help-centre"}],
)
def find_articles(args: FindInput) -> Found:
    """The two help-centre articles that best match a question, best first."""
    found = search(args.question)[:2]
    return Found(articles=[Article(id=a.id, title=a.title) for a, _ in found])
