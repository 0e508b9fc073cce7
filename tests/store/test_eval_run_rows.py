"""An eval run's row read as its record: what runs stored before kept reads back as it was,
and writing the record back keeps every JSON column as it was, key order too."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from kindgi_dev.domain.baselines import BaselineScope, LiveAsked, VersionAsked
from kindgi_dev.domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, Sample
from kindgi_dev.domain.segments import Segment
from kindgi_dev.store import eval_runs
from kindgi_dev.store.db import Database

JSON_COLUMNS = ("agent_ref", "flow_ref", "comparison", "frozen_version")
ON_A_SET = {
    "agent_ref": {"agentId": "acme-ops.article-picker", "version": "0.2.0"},
    "flow_ref": None,
    "comparison": {
        "baseline": {"live": {"projectId": "p", "segments": [{"key": "company", "value": "acme"}]}},
        "reads": "live", "repetitions": 3, "k": 5, "classWeights": "restricted-only",
        "sample": {"part": "hold-out", "seed": "seed-1", "holdOutShare": 0.3},
        "baselineVersion": {"kind": "version", "agentId": "acme-ops.article-picker",
                            "version": "0.1.0", "via": "live", "liveScope": {"projectId": "p"},
                            "liveSource": "pin"},
        "resumeOf": "er-0", "reuse": True,
    },
    "frozen_version": {"testSetId": "acme-ops.article-picker~p", "version": "2.0.0"},
}  # fmt: skip
OF_A_FLOW = {
    "agent_ref": None,
    "flow_ref": {"flowId": "acme-ops.suggest-articles", "version": "0.1.0"},
    "comparison": {
        "baseline": {"flowId": "acme-ops.suggest-articles", "version": "0.0.9"},
        "reads": "recorded", "repetitions": 1, "k": 10, "classWeights": "as-recorded",
        "versions": {"tools": {"acme-ops.find-articles": "0.2.0"}}, "rescoreOf": "er-1",
    },
    "frozen_version": None,
}  # fmt: skip


def _stored(db: Database, run_id: str, columns: dict[str, object]) -> None:
    """A row as kindgi dev wrote it before its runs were read as records."""
    texts = [None if columns[c] is None else json.dumps(columns[c]) for c in JSON_COLUMNS]
    db.run(
        "INSERT INTO eval_runs (run_id, tenant_id, project_id, suite_id, suite_version, kind, "
        "status, dry_run, started_at, case_count, agent_ref, flow_ref, comparison, "
        "frozen_version) VALUES (?, 't', 'p', 's', '1.0.0', 'judged', 'running', 0, "
        "'2026-01-01T00:00:00.000Z', 3, ?, ?, ?, ?)",
        (run_id, *texts),
    )


def _columns(db: Database, run_id: str) -> dict[str, object]:
    row = db.one(f"SELECT {', '.join(JSON_COLUMNS)} FROM eval_runs WHERE run_id = ?", (run_id,))
    assert row is not None
    return {c: None if row[c] is None else json.loads(row[c]) for c in JSON_COLUMNS}


def test_a_run_stored_before_reads_as_its_record(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    _stored(db, "on-set", ON_A_SET)
    _stored(db, "of-flow", OF_A_FLOW)

    on_set, of_flow = eval_runs.get(db, "on-set"), eval_runs.get(db, "of-flow")

    assert on_set is not None and of_flow is not None
    assert on_set.agent_ref == AgentCandidate("acme-ops.article-picker", "0.2.0")
    assert on_set.frozen_version == FrozenVersion("acme-ops.article-picker~p", "2.0.0")
    settings = on_set.settings
    assert (settings.reads, settings.repetitions, settings.k) == ("live", 3, 5)
    assert settings.restricted_only and settings.reuse and settings.resume_of == "er-0"
    assert settings.sample == Sample("hold-out", "seed-1", 0.3)
    assert settings.baseline == LiveAsked(BaselineScope("p", (Segment("company", "acme"),)))
    version = settings.baseline_version
    assert version is not None
    assert (version.agent_id, version.version, version.via, version.live_source) == (
        "acme-ops.article-picker", "0.1.0", "live", "pin")  # fmt: skip
    assert version.live_scope == BaselineScope("p")
    assert of_flow.agent_ref is None
    assert of_flow.flow_ref == FlowCandidate("acme-ops.suggest-articles", "0.1.0")
    assert of_flow.settings.baseline == VersionAsked("0.0.9", None, "acme-ops.suggest-articles")
    assert of_flow.settings.versions == {"tools": {"acme-ops.find-articles": "0.2.0"}}
    assert of_flow.settings.rescore_of == "er-1"
    assert (of_flow.case_count, of_flow.cases_done, of_flow.dry_run) == (3, 0, False)


def test_a_run_written_back_keeps_its_json_as_it_was(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    for run_id, columns in (("on-set", ON_A_SET), ("of-flow", OF_A_FLOW)):
        _stored(db, run_id, columns)
        record = eval_runs.get(db, run_id)
        assert record is not None
        eval_runs.insert(db, replace(record, run_id=f"{run_id}-again"))
        again = _columns(db, f"{run_id}-again")
        assert json.dumps(again) == json.dumps(_columns(db, run_id)) == json.dumps(columns)
        assert eval_runs.get(db, f"{run_id}-again") == replace(record, run_id=f"{run_id}-again")


def test_the_list_filters_on_the_agent_and_the_flow_it_kept(tmp_path: Path) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    _stored(db, "on-set", ON_A_SET)
    _stored(db, "of-flow", OF_A_FLOW)

    def listed(filters: eval_runs.RunFilters) -> list[str]:
        rows = eval_runs.list_page(db, "t", limit=10, after=None, filters=filters)
        return [row.run_id for row in rows]

    assert listed(eval_runs.RunFilters(agent_id="acme-ops.article-picker")) == ["on-set"]
    assert listed(eval_runs.RunFilters(flow_id="acme-ops.suggest-articles")) == ["of-flow"]
    assert listed(eval_runs.RunFilters(agent_id="acme-ops.other")) == []
    assert sorted(listed(eval_runs.RunFilters(suite_id="s"))) == ["of-flow", "on-set"]
