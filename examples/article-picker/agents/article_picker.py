"""The article picker: answers a customer's question with the help articles that answer it."""

from kindgi import Agent

from ..tools.log_suggestion import log_suggestion
from ..tools.search_articles import search_articles

ARTICLES = {
    "type": "object",
    "properties": {
        "articles": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
                "required": ["id", "title"],
            },
        }
    },
    "required": ["articles"],
}

article_picker = Agent(
    id="acme-ops.article-picker",
    version="0.1.0",
    name="Article picker",
    description="Picks the help-centre articles that answer a customer's question.",
    instructions=(
        "Call acme-ops.search-articles with the customer's question."
        " Answer with the three most relevant articles."
    ),
    capabilities=[{"needs": [{"feature": "tool-use"}]}],
    tools=[search_articles, log_suggestion],
    output={"schema": ARTICLES, "name": "articles", "maxRepairs": 2},
    budget={"maxSteps": 6},
)
