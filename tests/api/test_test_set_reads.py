"""A test-set read with many people's corrections on the same runs: the same statements,
each searching an index, at 5 and at 50 corrections a run. Mechanisms, not times."""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

from factories import AGENT, QUESTIONS, recorded_run, served
from starlette.testclient import TestClient
from test_scale import LITERAL, scans, traced

from kindgi_dev.domain.time import now_iso
from kindgi_dev.services.context import Context
from kindgi_dev.store import corrections as correction_store

RUNS = 20


def _first_corrections(client: TestClient, ctx: Context) -> list[str]:
    """RUNS runs of the tutorial's questions, each corrected once through the API."""
    questions = list(QUESTIONS)
    run_ids = []
    for n in range(RUNS):
        question = questions[n % len(questions)]
        run_id = recorded_run(ctx, question)
        items = [{"key": a, "pointer": f"/output/articles/{rank}", "rank": rank,
                  "verdict": "right" if rank == 0 else "wrong"}
                 for rank, a in enumerate(QUESTIONS[question])]  # fmt: skip
        body = {"runId": run_id, "participantId": "p-0", "items": items}
        assert client.post("/v1/corrections", json=body).status_code == 201
        run_ids.append(run_id)
    return run_ids


def _more_people(ctx: Context, run_ids: list[str], first: int, people: int) -> None:
    """Copies of each run's first correction by participants `first`..`people - 1`, written
    with the store's own functions."""
    rows = ctx.db.all("SELECT id, run_id FROM corrections")
    templates = {row["run_id"]: correction_store.get_correction(ctx.db, row["id"]) for row in rows}
    verdicts = correction_store.verdicts_of(ctx.db, [row["id"] for row in rows])
    with ctx.db.transaction():
        for person in range(first, people):
            for run_id in run_ids:
                template = templates[run_id]
                assert template is not None
                correction_id, at = str(uuid.uuid4()), now_iso()
                corrector = template.corrector._replace(participant_id=f"p-{person}")
                correction_store.insert_correction(ctx.db, replace(
                    template, id=correction_id, corrector=corrector, created_at=at, updated_at=at,
                ))  # fmt: skip
                correction_store.insert_verdicts(ctx.db, [
                    replace(v, id=str(uuid.uuid4()), correction_id=correction_id,
                            asserted_by=corrector, created_at=at)
                    for v in verdicts[template.id]
                ])  # fmt: skip


def _read(client: TestClient, ctx: Context) -> tuple[int, list[str]]:
    """The set and its first page of cases, as `kindgi` reads them: active cases, and the
    shapes of the statements the read ran."""
    with traced(ctx) as statements:
        summary = client.get(f"/v1/agents/{AGENT}/test-set")
        cases = client.get(f"/v1/agents/{AGENT}/test-set/cases")
    assert summary.status_code == 200 and cases.status_code == 200
    assert scans(ctx, statements) == {}
    return summary.json()["cases"]["active"], [LITERAL.sub("?", s) for s in statements]


def test_a_test_set_read_runs_the_same_indexed_statements_with_ten_times_the_people(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (client, ctx):
        run_ids = _first_corrections(client, ctx)
        _more_people(ctx, run_ids, 1, 5)
        fewer, few_shapes = _read(client, ctx)
        _more_people(ctx, run_ids, 5, 50)
        more, many_shapes = _read(client, ctx)
    assert (fewer, more) == (5 * RUNS, 50 * RUNS)
    assert many_shapes == few_shapes
