"""0.2.0 of the article picker as a function model that answers each question's first
article (the tutorial's better version), and may fail on one question."""

from __future__ import annotations

from pathlib import Path

FAILING_MODELS = '''\
"""0.2.0 as a function model; with FAIL, its provider fails on the package question."""

from kindgi_dev.models import Reply, ToolCall, model

TITLES = {"kb-101": "Reset your password", "kb-201": "Refunds", "kb-301": "Track a parcel"}
FIRST = {"password": "kb-101", "charged": "kb-201", "package": "kb-301"}


@model(default=True)
def candidate(turn):
    question = turn.question()
    if FAIL and "package" in question:
        raise RuntimeError("HTTP 503 from the model's provider, after 5 retries")
    if not turn.tool_results():
        return Reply(tool_calls=[ToolCall("acme-ops.search-articles", {"query": question})])
    picked = next(a for word, a in FIRST.items() if word in question)
    return Reply(text="Try this.", output={"articles": [{"id": picked, "title": TITLES[picked]}]})
'''


def first_article_models(tmp_path: Path, *, fail: bool) -> Path:
    """0.2.0 answering each question's first article; with `fail`, erroring on the package."""
    path = tmp_path / "first_article_models.py"
    path.write_text(f"FAIL = {fail!r}\n" + FAILING_MODELS)
    return path
