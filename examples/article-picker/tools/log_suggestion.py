"""Log which articles were suggested for a question: a writing tool, so replays never run it."""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path

from kindgi import ToolContext, tool
from pydantic import BaseModel, Field

LOG_FILE = Path(tempfile.gettempdir()) / "acme-ops-suggestions.jsonl"


class SuggestedArticle(BaseModel):
    id: str
    title: str


class Suggestion(BaseModel):
    question: str = Field(min_length=1)
    articles: list[SuggestedArticle]


class Logged(BaseModel):
    suggestion_id: str = Field(alias="suggestionId")


@tool(
    id="acme-ops.log-suggestion",
    mutating=True,
    effects=[{"kind": "writes", "resource": "suggestion-log"}],
)
def log_suggestion(args: Suggestion, ctx: ToolContext) -> Logged:
    """Appends the suggested articles for a question to Acme's suggestion log."""
    suggestion_id = ctx.idempotency_key or str(uuid.uuid4())
    line = {"suggestionId": suggestion_id, "runId": ctx.run_id, **args.model_dump()}
    with LOG_FILE.open("a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")
    return Logged(suggestionId=suggestion_id)
