"""Test sets: hand cases, retirements, frozen versions, eval suites and the test-set registry.

An agent's test set itself is computed when read (from `corrections` and `hand_cases`);
what is stored here is what can't be recomputed: cases added by hand, retirements,
the frozen versions a test run checks, built suites' cases, and published registry entries.
"""

SQL = """
CREATE TABLE hand_cases (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (id),
    made_on TEXT NOT NULL,
    items TEXT NOT NULL,
    decisions TEXT,
    answer TEXT,
    added_by_kind TEXT NOT NULL,
    added_by_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX hand_cases_agent ON hand_cases (agent_id, project_id, created_at DESC, id DESC);
CREATE TABLE case_retirements (
    case_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    by_kind TEXT NOT NULL,
    by_id TEXT NOT NULL,
    retired_at TEXT NOT NULL
);
CREATE INDEX corrections_cases ON corrections
    (subject_id, project_id, created_at DESC, id DESC, tenant_id, subject_kind, status, run_id)
    WHERE replaced_by IS NULL AND erased_at IS NULL;
CREATE INDEX runs_replay_flag ON runs (id, replay_of);
CREATE INDEX verdicts_live_by_correction ON verdicts (correction_id, rank)
    WHERE unregistered_at IS NULL AND superseded_by IS NULL;
CREATE TABLE test_set_versions (
    test_set_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    tenant_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    case_count INTEGER NOT NULL,
    frozen_at TEXT NOT NULL,
    PRIMARY KEY (test_set_id, version)
);
CREATE TABLE test_set_version_cases (
    test_set_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (test_set_id, version, seq)
);
CREATE TABLE eval_suites (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    project_id TEXT,
    kind TEXT NOT NULL,
    description TEXT,
    spec TEXT NOT NULL,
    case_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (id, version)
);
CREATE TABLE eval_suite_cases (
    suite_id TEXT NOT NULL,
    version TEXT NOT NULL,
    seq INTEGER NOT NULL,
    case_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (suite_id, version, seq)
);
CREATE TABLE test_set_registry (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    description TEXT,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (id, version)
)
"""
