"""What a live run reads (#29 point 2): a turn whose agent lists no guardrails doesn't read
its run and its conversation's turns again for checks that can't apply.

Counted from the statements the store runs for one `POST /v1/runs` of a function model
that answers at once: the run's row is read where it is recorded and where the answer is
made, no more; the conversation's runs are listed for the history and the turn's number.
"""

from __future__ import annotations

import re
from pathlib import Path

from factories import AGENT, served

MODELS = """
from kindgi_dev.models import Reply, Turn, model


@model(default=True)
def answer_at_once(turn: Turn) -> Reply:
    return Reply(text="No articles.", output={"articles": []})
"""

RUN_ROW = re.compile(r"^SELECT id, tenant_id, .* FROM runs WHERE id = ")
TURN_RUNS = re.compile(r"^SELECT id FROM runs WHERE conversation_id = ")


def test_a_turn_without_guardrails_reads_its_run_twice(tmp_path: Path) -> None:
    models = tmp_path / "models.py"
    models.write_text(MODELS)
    (tmp_path / "pack").mkdir()
    with served(tmp_path / "pack", models_file=models) as (client, ctx):
        body = {"agent": AGENT, "input": {"userMessage": "How do I reset my password?"}}
        assert client.post("/v1/runs", json=body).status_code == 201  # warm: first loads
        seen: list[str] = []
        ctx.db.trace(lambda sql: seen.append(" ".join(sql.split())))
        answer = client.post("/v1/runs", json=body)
        ctx.db.trace(None)
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "completed"
    assert sum(1 for sql in seen if RUN_ROW.match(sql)) == 2
    assert sum(1 for sql in seen if TURN_RUNS.match(sql)) == 2
