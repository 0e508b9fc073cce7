"""Find the help articles for a question, version 0.2.0: only the ones it asks about.

An article matches when it scores more than half the best match's score, so a question
about one thing finds that one article.
"""

from __future__ import annotations

from kindgi import tool

from ._help_centre import search
from .find_articles import Article, FindInput, Found


@tool(
    id="acme-ops.find-articles",
    version="0.2.0",
    mutating=False,
    effects=[{"kind": "reads", "resource": "help-centre"}],
)
def find_articles_v2(args: FindInput) -> Found:
    """The help-centre articles a question asks about, best first."""
    found = search(args.question)
    best = found[0][1] if found else 0
    return Found(
        articles=[Article(id=a.id, title=a.title) for a, score in found if score * 2 > best]
    )
