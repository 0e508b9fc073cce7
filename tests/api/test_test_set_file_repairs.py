"""An imported file's case that no answer could render is kept repaired, as a pull's is,
while the cases already in the stored shape are kept as the file spells them (#29). The
API refuses such numbers in a request, so the service is given the file (as an older
runtime's export, read by the CLI, could hold them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factories import AGENT, served

from kindgi_dev.domain.bounds import MAX_RANK, MAX_WEIGHT
from kindgi_dev.domain.test_set_files import FORMAT, KIND, case_text, envelope_of
from kindgi_dev.services import test_set_files

PULLED = "elsewhere.article-picker"


def _file(cases: list[dict[str, Any]]) -> dict[str, Any]:
    envelope = envelope_of(PULLED, "1.0.0", cases)
    return {
        "agents": envelope.agents, "caseCount": envelope.case_count, "cases": cases,
        "flows": envelope.flows, "format": FORMAT, "id": PULLED, "kind": KIND,
        "sha256": envelope.sha256, "version": "1.0.0",
    }  # fmt: skip


def test_an_imported_file_keeps_a_case_repaired_and_the_rest_as_spelled(tmp_path: Path) -> None:
    clean = {"id": "case-1", "kind": "hand", "runId": "run-1", "madeOn": "0.1.0",
             "judgeClassWeight": 2.5,
             "expect": {"items": [{"key": "kb-1", "verdict": "right", "rank": 0}]},
             "run": {"agentId": AGENT, "output": {"n": 1e300, "id": "9e123-é"}}}  # fmt: skip
    broken = {**clean, "id": "case-2", "judgeClassWeight": 1e308,
              "expect": {"items": [{"key": "kb-1", "verdict": "right", "rank": 10**15}]},
              "run": {"agentId": AGENT, "output": {"n": -1e300}}}  # fmt: skip
    data = _file([clean, broken])
    with served(tmp_path) as (client, ctx):
        made = test_set_files.import_file(ctx, json.loads(json.dumps(data)), "moved.json")
        assert made.pulled and made.case_count == 2
        assert made.source.url == "file:moved.json"
        cases = client.get(f"/v1/test-sets/{PULLED}/versions/1.0.0/cases").json()["data"]
        bodies = [r[0] for r in ctx.db.all("SELECT body FROM pulled_test_set_cases ORDER BY seq")]
    assert cases[0] == clean
    assert bodies[0] == case_text(clean), "a case that needs nothing is kept as its file's line"
    assert (cases[1]["judgeClassWeight"], cases[1]["expect"]["items"][0]["rank"]) == (
        MAX_WEIGHT,
        MAX_RANK,
    )
    assert cases[1]["run"] == broken["run"], "a copied number need only be finite"
